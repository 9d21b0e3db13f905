package dev.leasehold.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * EtcdMetrics reads the counters the bench needs from each member's Prometheus
 * {@code /metrics} page.
 *
 * <p>The text format is parsed by hand: only sums of one metric family (optionally grouped by
 * one label) are needed, and the Prometheus Java libraries write this format but do not read
 * it. Thread-safe (HttpClient is).
 */
final class EtcdMetrics {
  static final String PROPOSALS = "etcd_server_proposals_committed_total";
  static final String RPCS_STARTED = "grpc_server_started_total";
  static final String MSGS_RECEIVED = "grpc_server_msg_received_total";

  private static final HttpClient HTTP =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();

  private EtcdMetrics() {}

  /** Sample is one scrape of every member, with the monotonic time it was taken. */
  record Sample(long nanoTime, List<String> pages) {
    /** proposals is the largest committed-proposals count among members (each commits the same log). */
    double proposals() {
      return pages.stream().mapToDouble(p -> sum(p, PROPOSALS, null, null)).max().orElse(0);
    }

    /** rpcs is the number of gRPC calls started, summed over members. */
    double rpcs() {
      return pages.stream().mapToDouble(p -> sum(p, RPCS_STARTED, null, null)).sum();
    }

    /** cpuSeconds is the CPU time the members' processes have used, summed over members. */
    double cpuSeconds() {
      return pages.stream().mapToDouble(p -> sum(p, "process_cpu_seconds_total", null, null)).sum();
    }

    /** messages is the number of gRPC request messages received, summed over members. */
    double messages() {
      return pages.stream().mapToDouble(p -> sum(p, MSGS_RECEIVED, null, null)).sum();
    }

    /** messagesByMethod is the received-message count per gRPC method, summed over members. */
    Map<String, Double> messagesByMethod() {
      Map<String, Double> m = new TreeMap<>();
      for (String p : pages) {
        byLabel(p, MSGS_RECEIVED, "grpc_method").forEach((k, v) -> m.merge(k, v, Double::sum));
      }
      return m;
    }
  }

  /** Rates are per-second differences between two samples. */
  record Rates(double seconds, double proposalsPerSec, double rpcsPerSec, double messagesPerSec,
      Map<String, Double> messagesPerSecByMethod) {
    static Rates between(Sample a, Sample b) {
      double s = (b.nanoTime() - a.nanoTime()) / 1e9;
      Map<String, Double> before = a.messagesByMethod();
      Map<String, Double> by = new TreeMap<>();
      b.messagesByMethod().forEach((k, v) -> {
        double d = (v - before.getOrDefault(k, 0.0)) / s;
        if (d > 0) {
          by.put(k, d);
        }
      });
      return new Rates(s, (b.proposals() - a.proposals()) / s, (b.rpcs() - a.rpcs()) / s,
          (b.messages() - a.messages()) / s, by);
    }

    /** proposalCount is the number of proposals committed between the samples. */
    long proposalCount() {
      return Math.round(proposalsPerSec * seconds);
    }
  }

  /** scrape reads every endpoint's metrics page. */
  static Sample scrape(List<String> endpoints) {
    long t = System.nanoTime();
    List<String> pages = new ArrayList<>();
    for (String e : endpoints) {
      pages.add(get(e + "/metrics"));
    }
    return new Sample(t, pages);
  }

  /** leases is the number of leases etcd holds (LeaseLeases via the JSON gateway), or -1 if unknown. */
  static int leases(String endpoint) {
    try {
      HttpRequest req = HttpRequest.newBuilder(URI.create(endpoint + "/v3/lease/leases"))
          .timeout(Duration.ofSeconds(5)).POST(HttpRequest.BodyPublishers.ofString("{}")).build();
      String body = HTTP.send(req, HttpResponse.BodyHandlers.ofString()).body();
      return body.split("\"ID\"", -1).length - 1;
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  private static String get(String url) {
    try {
      HttpRequest req = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).GET().build();
      return HTTP.send(req, HttpResponse.BodyHandlers.ofString()).body();
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + url + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted reading " + url, e);
    }
  }

  /** sum adds every sample of {@code name}, or only those whose {@code label} equals {@code value}. */
  static double sum(String page, String name, String label, String value) {
    double total = 0;
    for (String line : page.split("\n")) {
      if (line.startsWith(name) && (line.length() > name.length())
          && (line.charAt(name.length()) == '{' || line.charAt(name.length()) == ' ')) {
        if (label != null && !value.equals(labelValue(line, label))) {
          continue;
        }
        total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return total;
  }

  /** byLabel sums {@code name} per value of {@code label}. */
  static Map<String, Double> byLabel(String page, String name, String label) {
    Map<String, Double> m = new TreeMap<>();
    for (String line : page.split("\n")) {
      if (line.startsWith(name + "{")) {
        String v = labelValue(line, label);
        if (v != null) {
          m.merge(v, Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)), Double::sum);
        }
      }
    }
    return m;
  }

  private static String labelValue(String line, String label) {
    int i = line.indexOf(label + "=\"");
    if (i < 0) {
      return null;
    }
    int start = i + label.length() + 2;
    return line.substring(start, line.indexOf('"', start));
  }
}
