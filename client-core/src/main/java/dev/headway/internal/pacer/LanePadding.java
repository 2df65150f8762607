package dev.headway.internal.pacer;

/**
 * The cache line of a {@link FastLane}'s state: the one word every fast acquire takes with a
 * CAS, with 56 bytes of padding on each side (a superclass's fields are laid out before its
 * subclass's), so that the line that moves between cores on every acquire holds nothing else:
 * not the lane's read-mostly lease (its cost, expiry and slots), nor a neighbouring object read
 * by every acquire (such as a node of the partition map, allocated right after the partition).
 * Holds no logic.
 */
final class LanePadding {
  private LanePadding() {}

  /** The padding before the state. */
  abstract static class Before {
    long p01;
    long p02;
    long p03;
    long p04;
    long p05;
    long p06;
    long p07;
  }

  /** The state: see {@link FastLane}. */
  abstract static class State extends Before {
    volatile long state;
  }

  /** The padding after the state. */
  abstract static class After extends State {
    long q01;
    long q02;
    long q03;
    long q04;
    long q05;
    long q06;
    long q07;
  }
}
