package dev.leasehold.it.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * ProcNet finds which local process owns one end of a loopback TCP connection, from Linux's
 * /proc: the socket's inode from /proc/net/tcp{,6}, then the process whose fd table holds it.
 *
 * <p>Every etcd member dials its peers from 127.0.0.1, so a proxy in front of a member cannot
 * tell its peers apart by address; it can by process. Stateless and thread-safe; Linux only.
 */
final class ProcNet {
  private ProcNet() {}

  /**
   * socketInode returns the inode of the socket whose local port is {@code localPort} and whose
   * remote port is {@code remotePort}, or -1 if there is none.
   */
  static long socketInode(int localPort, int remotePort) {
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      List<String> lines;
      try {
        lines = Files.readAllLines(Path.of(table), StandardCharsets.US_ASCII);
      } catch (IOException e) {
        continue;
      }
      for (int i = 1; i < lines.size(); i++) {
        String[] f = lines.get(i).trim().split("\\s+");
        if (f.length < 10) {
          continue;
        }
        if (port(f[1]) == localPort && port(f[2]) == remotePort) {
          long inode = Long.parseLong(f[9]);
          if (inode != 0) {
            return inode;
          }
        }
      }
    }
    return -1;
  }

  /** owns tells whether process {@code pid} has the socket with {@code inode} open. */
  static boolean owns(long pid, long inode) {
    if (pid <= 0 || inode <= 0) {
      return false;
    }
    String want = "socket:[" + inode + "]";
    try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "fd"))) {
      for (Path fd : fds) {
        try {
          if (want.equals(Files.readSymbolicLink(fd).toString())) {
            return true;
          }
        } catch (IOException closedMeanwhile) {
          // The fd went away while listing.
        }
      }
    } catch (IOException e) {
      return false;
    }
    return false;
  }

  /** Snapshot is /proc/net/tcp{,6} read once: socket inode by (local port, remote port). */
  static final class Snapshot {
    private final Map<Long, Long> inodes = new HashMap<>();

    static Snapshot take() {
      Snapshot s = new Snapshot();
      for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
        List<String> lines;
        try {
          lines = Files.readAllLines(Path.of(table), StandardCharsets.US_ASCII);
        } catch (IOException e) {
          continue;
        }
        for (int i = 1; i < lines.size(); i++) {
          String[] f = lines.get(i).trim().split("\\s+");
          if (f.length < 10) {
            continue;
          }
          long inode = Long.parseLong(f[9]);
          if (inode != 0) {
            s.inodes.put(key(port(f[1]), port(f[2])), inode);
          }
        }
      }
      return s;
    }

    /** inode of the socket with these local and remote ports, or -1. */
    long inode(int localPort, int remotePort) {
      return inodes.getOrDefault(key(localPort, remotePort), -1L);
    }

    private static long key(int local, int remote) {
      return ((long) local << 16) | remote;
    }
  }

  /** socketInodes lists the inodes of every socket {@code pid} has open (empty if none or gone). */
  static Set<Long> socketInodes(long pid) {
    Set<Long> out = new HashSet<>();
    if (pid <= 0) {
      return out;
    }
    try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "fd"))) {
      for (Path fd : fds) {
        try {
          String link = Files.readSymbolicLink(fd).toString();
          if (link.startsWith("socket:[")) {
            out.add(Long.parseLong(link.substring(8, link.length() - 1)));
          }
        } catch (IOException | RuntimeException closedMeanwhile) {
          // The fd went away while listing.
        }
      }
    } catch (IOException e) {
      return out;
    }
    return out;
  }

  private static int port(String hexAddress) {
    int colon = hexAddress.lastIndexOf(':');
    return Integer.parseInt(hexAddress.substring(colon + 1), 16);
  }
}
