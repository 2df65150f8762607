/** Headway's adapter for java.net.http. */
@NullMarked
package dev.headway.jdk;

import org.jspecify.annotations.NullMarked;
