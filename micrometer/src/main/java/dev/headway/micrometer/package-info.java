/**
 * Micrometer metrics for a {@link dev.headway.Pacer}:
 * {@link dev.headway.micrometer.HeadwayMetrics}.
 */
@NullMarked
package dev.headway.micrometer;

import org.jspecify.annotations.NullMarked;
