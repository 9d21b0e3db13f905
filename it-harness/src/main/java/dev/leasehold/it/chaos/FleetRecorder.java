package dev.leasehold.it.chaos;

import dev.leasehold.it.chaos.History.FaultWindow;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * FleetRecorder records a spreading fleet's lines ({@code SpreadChaosMember}'s): a line about one
 * shard ({@code S <shard> <line>}) goes, without its prefix, to that shard's own {@link
 * HistoryRecorder}, so each shard's terms and writes are parsed exactly as a single election's
 * are; every line, and the harness's notes, also go to the fleet's log, which holds the run's
 * stalls and fault windows. {@link #history} then builds one {@link History} per shard for
 * {@link HistoryChecker}.
 *
 * <p>Thread-safe: lines arrive on each member's reader thread; the recorders are.
 */
public final class FleetRecorder {
  private final HistoryRecorder fleet = new HistoryRecorder();
  private final Map<String, HistoryRecorder> shards = new LinkedHashMap<>();

  /** FleetRecorder records the shards named, in that order. */
  public FleetRecorder(List<String> shardNames) {
    shardNames.forEach(s -> shards.put(s, new HistoryRecorder()));
  }

  /** fleet is the recorder of the fleet's log, its stalls and its fault windows. */
  public HistoryRecorder fleet() {
    return fleet;
  }

  /** shards are the shards' recorders, by shard name, in order. */
  public Map<String, HistoryRecorder> shards() {
    return shards;
  }

  /** listener returns the line consumer for one member process. */
  public Consumer<String> listener(String process) {
    return line -> accept(process, line);
  }

  /** accept records one line printed by {@code process}. */
  public void accept(String process, String line) {
    fleet.accept(process, line);
    if (line.startsWith("S ")) {
      int end = line.indexOf(' ', 2);
      HistoryRecorder shard = end < 0 ? null : shards.get(line.substring(2, end));
      if (shard == null) {
        fleet.note("line about no known shard from " + process + ": " + line);
      } else {
        shard.accept(process, line.substring(end + 1));
      }
    }
  }

  /** killed ends every term {@code process} holds, at {@code nanos}: the process is gone. */
  public void killed(String process, long nanos) {
    fleet.note("gone " + process);
    shards.values().forEach(r -> r.killed(process, nanos));
  }

  /** fault records one storm's window. */
  public void fault(FaultWindow f) {
    fleet.fault(f);
  }

  /**
   * history is shard {@code shard}'s history: its own terms and writes, the store's record of its
   * key and counter, and the fleet's fault windows and stalls.
   */
  public History history(String shard, History.Params params, StoreHistory record, long runStart, long runEnd) {
    HistoryRecorder r = shards.get(shard);
    return new History(params, r.intervals(runEnd), r.attempts(), fleet.faults(), fleet.freezes(), fleet.stalls(),
        record.writes(), record.incarnations(), record.finalCounter(), runStart, runEnd);
  }
}
