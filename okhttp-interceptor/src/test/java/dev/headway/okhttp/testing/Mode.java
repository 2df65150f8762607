package dev.headway.okhttp.testing;

/** How a test executes its calls: every behaviour is checked both ways. */
public enum Mode {
  /** {@code Call.execute()}, on a thread of the test's own. */
  SYNC,
  /** {@code Call.enqueue()}, on OkHttp's dispatcher threads. */
  ASYNC
}
