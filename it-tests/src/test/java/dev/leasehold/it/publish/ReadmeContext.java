package dev.leasehold.it.publish;

import dev.leasehold.Leadership;
import io.etcd.jetcd.ByteSequence;
import java.sql.Connection;
import javax.sql.DataSource;

/**
 * ReadmeContext holds the stand-ins for the application's own objects that README.md's Java
 * snippets use without defining (the user's scheduler, logger, job, pool and secret). Every snippet
 * compiles as the body of a method of a subclass; nothing else is in scope but the imports
 * {@link ReadmeSnippetsTest} lists. Not thread-safe; never instantiated.
 */
public abstract class ReadmeContext {
  /** YourScheduler stands in for the application's leader-only loop. */
  protected interface YourScheduler {
    void runWhileLeading(Leadership term);

    void stop();
  }

  /** Stand-in for a job. */
  protected interface Job {}

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
