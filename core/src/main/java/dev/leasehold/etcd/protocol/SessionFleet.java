package dev.leasehold.etcd.protocol;

import dev.leasehold.runtime.Input;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * SessionFleet is a spreading session's view of its fleet and what it does with it (PROTOCOL.md
 * §11.7), free of any store client: the members and the holder of every election key, as the
 * session's one watch and its re-reads show them; the preference each election is told for a
 * free key; and, after each confirmed renewal, the moves that bring this member to its target
 * ({@link Spread}), or, while the session's health check holds it unhealthy, the moves that hand
 * every election it leads to the healthy members. The session's hub feeds it; it tells the
 * elections through their inboxes.
 *
 * <p>Not thread-safe: the session's lease loop owns an instance.
 */
public final class SessionFleet {
  /** Deletes is how the fleet sends a fenced delete {@code If ModRevision(key) == token Then Delete(key)}. */
  public interface Deletes {
    /** delete sends the fenced delete of {@code key} at {@code token}. */
    void delete(String key, long token);
  }

  private final String membersPrefix;
  // The session's open elections' inboxes, by key (a concurrent map the session owns).
  private final Map<String, ? extends Consumer<Input>> inboxes;
  private final Deletes deletes;
  private final Map<Long, SessionMember> members = new HashMap<>();
  private final Map<String, KeyRecord> held = new HashMap<>();
  // The watch's changes while a re-read is in flight: those newer than the read are applied again
  // over it (the loop may take changes newer than the read before the read's answer).
  private final List<Object[]> sinceReread = new ArrayList<>();
  private boolean rereading;
  private long viewRevision;
  // Moves asked for and not yet seen landed, by key: the round they were asked in.
  private final Map<String, Long> moving = new HashMap<>();
  private long round;
  // Members change (a join, a leave) in bursts: moves wait for a round with no change, so that
  // a plan made between two joins does not move elections twice.
  private long membersChanges;
  private long plannedChanges = -1;
  private boolean membersChanged;
  // Whether this member holds at least its share's ceiling (then it prefers no free key), and
  // what each election was last told of its preference.
  private boolean full;
  private final Map<String, Boolean> told = new HashMap<>();
  private long lease;
  // Yield when unhealthy (PROTOCOL.md §11.7): the user's health check holds this session
  // unhealthy, so it is no member (its hub deleted its member key) and hands every election it
  // leads to the healthy members; kept is how many it still leads for want of one.
  private boolean unhealthy;
  private int kept;

  /**
   * SessionFleet keeps the view of the fleet under {@code prefix} for the session whose open
   * elections' inboxes are {@code inboxes} (by key; read, never changed here), sending its
   * fenced deletes through {@code deletes}.
   */
  public SessionFleet(String prefix, Map<String, ? extends Consumer<Input>> inboxes, Deletes deletes) {
    this.membersPrefix = prefix + SessionMember.MEMBERS;
    this.inboxes = inboxes;
    this.deletes = deletes;
  }

  private void tell(String key, SessionInput input) {
    Consumer<Input> inbox = inboxes.get(key);
    if (inbox != null) {
      inbox.accept(input);
    }
  }

  /** isMember tells whether {@code key} is a member key rather than an election's. */
  public boolean isMember(String key) {
    return key.startsWith(membersPrefix);
  }

  /** rereadStarted marks a read of the whole prefix in flight (after the watch was (re)created). */
  public void rereadStarted() {
    if (!rereading) {
      rereading = true;
      sinceReread.clear();
    }
  }

  /**
   * reread replaces the view with a read of the prefix at {@code revision} ({@code keys}: every
   * key there, member keys with their value as holder), then applies again the watch's changes
   * newer than it.
   */
  public void reread(Map<String, KeyRecord> keys, long revision) {
    members.clear();
    held.clear();
    keys.forEach((k, r) -> apply(k, r));
    rereading = false;
    viewRevision = revision;
    membersChanged = true;
    List<Object[]> newer = List.copyOf(sinceReread);
    sinceReread.clear();
    for (Object[] c : newer) {
      changed((String) c[0], (KeyRecord) c[1], (Long) c[2]);
    }
    settle();
  }

  /**
   * changed applies one change the watch showed: {@code key} put ({@code record}, a member key's
   * value as holder) or deleted (null), at {@code revision}. Call {@link #settle()} after a
   * batch.
   */
  public void changed(String key, KeyRecord record, long revision) {
    if (rereading) {
      sinceReread.add(new Object[] {key, record, revision});
    }
    if (revision > viewRevision) {
      apply(key, record);
    }
  }

  /** settle tells the elections their new preferences once a batch of changes moved the members. */
  public void settle() {
    if (membersChanged) {
      membersChanged = false;
      membersChanges++;
      prefer();
    }
  }

  /** forget drops what an election that left was told, so that one opened again is told afresh. */
  public void forget(String key) {
    told.remove(key);
  }

  private void apply(String key, KeyRecord record) {
    if (isMember(key)) {
      membersChanged = true;
      long id;
      try {
        id = Long.parseUnsignedLong(key.substring(membersPrefix.length()), 16);
      } catch (NumberFormatException notOne) {
        return;
      }
      SessionMember m = record == null ? null
          : SessionMember.parse(record.leaseId(), record.holderId(), record.createRevision());
      if (m != null && m.leaseId() == id) {
        members.put(id, m);
      } else {
        members.remove(id);
      }
      return;
    }
    if (record == null) {
      held.remove(key);
      moving.remove(key);
      return;
    }
    held.put(key, record);
    if (record.leaseId() != lease) {
      moving.remove(key);
    } else if (lease != 0 && record.createRevision() != record.modRevision() && !inboxes.containsKey(key)) {
      // Moved to this session, which has no such election open: freed for those that have.
      deletes.delete(key, record.modRevision());
    }
  }

  /**
   * prefer tells each election whether this member is the one that campaigns at once when its
   * key is free (Spread.preferred), if that changed: not while it holds its share's ceiling,
   * nor before it is a member in its own view (a cold fleet then spreads by preference, not by
   * who campaigns first; the hold-back is a poll interval at most).
   */
  private void prefer() {
    if (lease == 0) {
      return;
    }
    boolean member = members.containsKey(lease) && !unhealthy;
    if (member) {
      // Now, not as of the last renewal: a leave lowers the share of none, but frees elections
      // that the members at their old ceiling must not all hold back from.
      Set<String> open = new HashSet<>(inboxes.keySet());
      int mine = 0;
      for (Map.Entry<String, KeyRecord> e : held.entrySet()) {
        if (members.containsKey(e.getValue().leaseId())) {
          open.add(e.getKey());
          mine += e.getValue().leaseId() == lease ? 1 : 0;
        }
      }
      full = mine >= ceiling(open.size());
    }
    for (String key : List.copyOf(inboxes.keySet())) {
      boolean mine = member && !full && Spread.preferred(members.values(), key).leaseId() == lease;
      if (!Boolean.valueOf(mine).equals(told.put(key, mine))) {
        tell(key, new SessionInput.Preferred(mine));
      }
    }
  }

  /**
   * renewed runs after each confirmed renewal of this member's lease {@code leaseId}, once its
   * member key was written: once the view shows it and the members did not change since the last
   * renewal, it asks its elections above its target to move (Spread), one election per move,
   * and waits for the moves it asked for (or two renewals) before it plans again. Unhealthy, it
   * hands every election it leads to the healthy members instead, at once (no settled round is
   * waited for: it leaves, it does not plan), or counts those it keeps for want of one.
   */
  public void renewed(long leaseId) {
    if (leaseId != lease) {
      lease = leaseId;
      told.clear();
    }
    round++;
    moving.values().removeIf(asked -> asked < round - 2); // lost or refused: the view tells
    if (unhealthy) {
      prefer();
      handOver(leaseId);
      return;
    }
    kept = 0;
    if (!members.containsKey(leaseId)) {
      return;
    }
    Map<Long, Integer> count = new HashMap<>();
    Set<String> open = new HashSet<>(inboxes.keySet());
    List<String> mine = new ArrayList<>();
    held.forEach((key, k) -> {
      if (members.containsKey(k.leaseId())) {
        count.merge(k.leaseId(), 1, Integer::sum);
        open.add(key);
        if (k.leaseId() == leaseId) {
          mine.add(key);
        }
      }
    });
    prefer();
    boolean settled = plannedChanges == membersChanges;
    plannedChanges = membersChanges;
    if (!moving.isEmpty() || !settled) {
      return;
    }
    Set<String> openHere = Set.copyOf(inboxes.keySet());
    Iterator<String> next = mine.iterator();
    for (Spread.Move m : Spread.moves(members.values(), count, open.size())) {
      if (m.from().leaseId() != leaseId) {
        continue;
      }
      for (int i = 0; i < m.count() && next.hasNext(); ) {
        String key = next.next();
        if (openHere.contains(key)) {
          moving.put(key, round);
          tell(key, new SessionInput.MoveTo(m.to(), held.get(key).modRevision()));
          i++;
        }
      }
    }
  }

  /**
   * healthChanged follows the session's health check (its view after the threshold): unhealthy,
   * this session is no member any more, its elections are told not to campaign, and at each
   * renewal it hands every election it leads to the healthy members ({@link #renewed}); healthy
   * again, it is a member once the view shows its member key again, and spreading gives it its
   * share as after a join. The elections are told by the hub, which keeps the news for those
   * that join later.
   */
  public void healthChanged(boolean healthy) {
    if (unhealthy == !healthy) {
      return;
    }
    unhealthy = !healthy;
    if (healthy) {
      kept = 0;
    }
    prefer();
  }

  /**
   * kept is how many elections this session, unhealthy, still leads at its last renewal because
   * no healthy member was there to take them (an unhealthy leader beats none); 0 while healthy
   * or once it could hand them over.
   */
  public int kept() {
    return kept;
  }

  /**
   * handOver asks every election this session leads, as the view shows it and not already being
   * moved, to move to a healthy member ({@link Spread#handOver}: the one furthest below its
   * target first, so that the healthy members stay even); with none, it keeps them and counts them.
   */
  private void handOver(long leaseId) {
    Map<Long, Integer> count = new HashMap<>();
    Set<String> open = new HashSet<>(inboxes.keySet());
    List<String> mine = new ArrayList<>();
    held.forEach((key, k) -> {
      if (k.leaseId() == leaseId) {
        if (inboxes.containsKey(key)) {
          mine.add(key);
        }
      } else if (members.containsKey(k.leaseId())) {
        count.merge(k.leaseId(), 1, Integer::sum);
        open.add(key);
      }
    });
    List<SessionMember> healthy = new ArrayList<>(members.values());
    healthy.removeIf(m -> m.leaseId() == leaseId); // its own key, deleted but not yet seen so
    if (healthy.isEmpty()) {
      kept = mine.size();
      return;
    }
    kept = 0;
    mine.removeIf(moving::containsKey);
    mine.sort(null);
    List<SessionMember> to = Spread.handOver(healthy, count, open.size(), mine.size());
    for (int i = 0; i < to.size(); i++) {
      String key = mine.get(i);
      moving.put(key, round);
      tell(key, new SessionInput.MoveTo(to.get(i), held.get(key).modRevision()));
    }
  }

  /** ceiling is this member's share's ceiling of {@code n} elections: ⌈n × weight / total weight⌉. */
  private long ceiling(int n) {
    long total = members.values().stream().mapToLong(SessionMember::weight).sum();
    long quota = (long) n * members.get(lease).weight();
    return (quota + total - 1) / total;
  }

  /** ended forgets the lease that ended: until the next renewal this session is no member. */
  public void ended() {
    lease = 0;
  }
}
