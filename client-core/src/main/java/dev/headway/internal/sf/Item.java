package dev.headway.internal.sf;

/** An RFC 9651 Item: a bare item with parameters. */
public record Item(BareItem value, Parameters parameters) implements Member {}
