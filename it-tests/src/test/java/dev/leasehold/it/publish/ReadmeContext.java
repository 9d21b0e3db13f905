package dev.leasehold.it.publish;

import dev.leasehold.LeaderElector;
import dev.leasehold.Leadership;
import io.etcd.jetcd.ByteSequence;
import java.sql.Connection;
import javax.sql.DataSource;

/**
 * ReadmeContext holds the stand-ins for the application's own objects that the Java snippets of
 * README.md and docs/ use without defining (the user's elector, scheduler, logger, job, pool and
 * secret). Every snippet that is not a whole source file compiles as the body of a method, or the
 * members, of a subclass; nothing else is in scope but the imports {@link ReadmeSnippetsTest}
 * lists. Not thread-safe; never instantiated.
 */
public abstract class ReadmeContext {
  /** YourScheduler stands in for the application's leader-only loop. */
  protected interface YourScheduler {
    void runWhileLeading(Leadership term);

    void stop();
  }

  /** Stand-in for a job. */
  protected interface Job {}

  protected LeaderElector elector;
  protected YourScheduler scheduler;
  protected org.slf4j.Logger log;
  protected Job job;
  protected ByteSequence jobKey;
  protected ByteSequence jobValue;
  protected String secret;
  protected DataSource pool;

  protected void dispatch(Job job) {}

  protected void dispatch(Connection c, Job job) {}
}
