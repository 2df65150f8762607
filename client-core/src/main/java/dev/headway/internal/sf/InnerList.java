package dev.headway.internal.sf;

import java.util.List;

/** An RFC 9651 Inner List: items with parameters of its own. */
public record InnerList(List<Item> items, Parameters parameters) implements Member {}
