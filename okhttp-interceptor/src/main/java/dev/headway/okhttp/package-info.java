/** Headway's adapter for OkHttp. */
@NullMarked
package dev.headway.okhttp;

import org.jspecify.annotations.NullMarked;
