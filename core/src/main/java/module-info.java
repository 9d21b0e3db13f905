/**
 * Leasehold's core: the public API ({@code dev.leasehold}) and the backends users build
 * electors with ({@code dev.leasehold.etcd}, {@code dev.leasehold.jdbc}, {@code dev.leasehold.local}),
 * and the factory that picks among them with an explicit fallback policy ({@code dev.leasehold.select});
 * the JDBC backend needs only {@code java.sql}, the user brings the driver; {@code
 * dev.leasehold.micrometer} binds meters when the application has Micrometer (an optional
 * dependency). The backend-neutral runtime
 * ({@code dev.leasehold.runtime}) and the etcd protocol machine ({@code dev.leasehold.etcd.protocol})
 * are internal: exported only to the test kit ({@code dev.leasehold.test}).
 */
module dev.leasehold.core {
  requires transitive jetcd.core;
  requires jetcd.common;
  // gRPC's status codes name etcd's refusals; netty's SslContextBuilder takes the PEM
  // material. Neither type appears in the exported API: the builder takes java.nio.file.Path.
  requires io.grpc;
  requires io.netty.handler;
  requires org.slf4j;
  // The Flight Recorder events (runtime.FlightEvents): off unless the JVM records them.
  requires jdk.jfr;
  requires transitive java.sql;
  // Optional: only dev.leasehold.micrometer uses it; micrometer-core 1.17.2 has no module-info,
  // but its manifest names the automatic module micrometer.core. Transitive, because the
  // binder's signatures name its types (MeterBinder, MeterRegistry, Tag).
  requires static transitive micrometer.core;

  exports dev.leasehold;
  exports dev.leasehold.etcd;
  exports dev.leasehold.jdbc;
  exports dev.leasehold.local;
  exports dev.leasehold.micrometer;
  exports dev.leasehold.select;

  // The test kit (leasehold-test) runs real electors on virtual time: it builds the runtime and
  // the etcd machine itself, and a LocalStore on its scheduler through the store's
  // package-private constructor. Nobody else sees these packages.
  exports dev.leasehold.runtime to dev.leasehold.test;
  exports dev.leasehold.etcd.protocol to dev.leasehold.test;
  opens dev.leasehold.local to dev.leasehold.test;
}
