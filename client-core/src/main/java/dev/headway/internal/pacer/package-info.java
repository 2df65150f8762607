/** Implementation details; not part of the public API and may change without notice. */
@NullMarked
package dev.headway.internal.pacer;

import org.jspecify.annotations.NullMarked;
