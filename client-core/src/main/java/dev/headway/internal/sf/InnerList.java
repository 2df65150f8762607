package dev.headway.internal.sf;

import java.util.List;

/** An RFC 9651 Inner List: items with parameters of its own. */
public record InnerList(List<Item> items, Parameters parameters) implements Member {
  /** Returns the inner list as a field writes it, e.g. {@code (a b);x=1}. */
  @Override
  public String toString() {
    StringBuilder out = new StringBuilder("(");
    for (int i = 0; i < items.size(); i++) {
      out.append(i == 0 ? "" : " ").append(items.get(i));
    }
    return out.append(')').append(parameters).toString();
  }
}
