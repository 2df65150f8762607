/**
 * The {@code headway} command line. {@link dev.headway.cli.HeadwayCli} is the entry point; every
 * other type is an implementation detail.
 */
@NullMarked
package dev.headway.cli;

import org.jspecify.annotations.NullMarked;
