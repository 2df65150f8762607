package dev.headway.internal.pacer;

/**
 * The cache line of a {@link FastLane}'s state, and of each {@link LaneStripe}'s: the word every
 * fast acquire takes with a CAS (and, for a stripe, the counts of the permits given back, written
 * by the same threads), with 120 bytes of padding on each side (a superclass's fields are laid
 * out before its subclass's), so that a line that moves between cores holds nothing else: not
 * the lane's read-mostly lease (its cost, expiry and slots), nor whatever object the collector
 * happens to place next to it. 120 bytes rather than 56: some processors fetch lines in
 * adjacent pairs. Holds no logic.
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
    long p08;
    long p09;
    long p10;
    long p11;
    long p12;
    long p13;
    long p14;
    long p15;
  }

  /** The state: see {@link FastLane} and {@link LaneStripe}. */
  abstract static class State extends Before {
    volatile long state;
    /** A stripe's count of given-back permits of the even laps (a lane leaves it at 0). */
    volatile long givenEven;
    /** A stripe's count of given-back permits of the odd laps (a lane leaves it at 0). */
    volatile long givenOdd;
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
    long q08;
    long q09;
    long q10;
    long q11;
    long q12;
    long q13;
    long q14;
    long q15;
  }
}
