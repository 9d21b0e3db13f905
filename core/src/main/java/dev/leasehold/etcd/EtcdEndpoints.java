package dev.leasehold.etcd;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * EtcdEndpoints validates the builder's etcd URLs against its TLS choice: all {@code http://}
 * without TLS, all {@code https://} with it, so that no endpoint is dialled in plaintext where
 * TLS was asked for (jetcd applies one TLS setting to every endpoint and ignores the scheme).
 *
 * <p>Stateless and thread-safe.
 */
final class EtcdEndpoints {
  private EtcdEndpoints() {}

  /** validate returns the trimmed URLs, or throws naming the first bad endpoint and why. */
  static List<String> validate(List<String> endpoints, boolean tls) {
    if (endpoints == null || endpoints.isEmpty()) {
      throw new IllegalArgumentException(
          "endpoints must name at least one etcd URL such as http://127.0.0.1:2379 (or set"
              + " client), but was " + endpoints);
    }
    List<String> urls = new ArrayList<>();
    List<String> schemes = new ArrayList<>();
    for (int i = 0; i < endpoints.size(); i++) {
      String e = endpoints.get(i);
      String problem = problem(e);
      if (problem != null) {
        throw new IllegalArgumentException(
            "endpoints[" + i + "] must be a URL like http://127.0.0.1:2379 (" + problem
                + "), but was " + (e == null ? "null" : "\"" + e + "\""));
      }
      urls.add(e.trim());
      schemes.add(URI.create(e.trim()).getScheme());
    }
    int http = schemes.indexOf("http");
    int https = schemes.indexOf("https");
    if (http >= 0 && https >= 0) {
      throw new IllegalArgumentException(
          "endpoints must all be http:// or all https:// (one TLS setting covers every"
              + " endpoint), but endpoints[" + http + "] is \"" + urls.get(http)
              + "\" and endpoints[" + https + "] is \"" + urls.get(https) + "\"");
    }
    if (https >= 0 && !tls) {
      throw new IllegalArgumentException(
          "tls must be set for https:// endpoints, with tls(caCertificate) or"
              + " tlsJvmDefaultTrust(), but was not set (endpoints[" + https + "] is \""
              + urls.get(https) + "\")");
    }
    if (http >= 0 && tls) {
      throw new IllegalArgumentException(
          "endpoints[" + http + "] must be https:// when TLS is set (an http:// endpoint would"
              + " be dialled in plaintext), but was \"" + urls.get(http) + "\"");
    }
    return urls;
  }

  private static String problem(String e) {
    if (e == null || e.isBlank()) {
      return "empty";
    }
    if (e.contains(",")) {
      return "one URL per endpoint: pass several as separate arguments, not joined by commas";
    }
    if (!e.contains("://")) {
      return "scheme must be http or https";
    }
    URI uri;
    try {
      uri = new URI(e.trim());
    } catch (Exception bad) {
      return "not a URI";
    }
    if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
      return "scheme must be http or https";
    }
    if (uri.getHost() == null) {
      return "no host";
    }
    if (uri.getPort() <= 0 || uri.getPort() > 65535) {
      return "no port";
    }
    return null;
  }
}
