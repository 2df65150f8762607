package dev.headway.internal.sf;

/** A member of a List or a value of a Dictionary: an {@link Item} or an {@link InnerList}. */
public sealed interface Member permits Item, InnerList {
  /** Returns the member's parameters. */
  Parameters parameters();
}
