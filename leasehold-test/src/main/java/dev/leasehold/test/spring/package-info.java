/**
 * The Spring Boot test slice: {@link dev.leasehold.test.spring.LeaseholdTest} gives a test
 * context a real elector on virtual time, driven by {@link
 * dev.leasehold.test.spring.LeadershipControl}. Needs Spring on the test class path (an optional
 * dependency of the kit).
 */
package dev.leasehold.test.spring;
