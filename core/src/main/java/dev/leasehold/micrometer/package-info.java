/**
 * Micrometer meters for an elector ({@link dev.leasehold.micrometer.LeaseholdMetrics}). The
 * only package of leasehold-core that uses Micrometer, which is an optional dependency: add
 * {@code io.micrometer:micrometer-core} to use it; without it the rest of core works unchanged.
 *
 * <p>Every public type states its thread safety.
 */
package dev.leasehold.micrometer;
