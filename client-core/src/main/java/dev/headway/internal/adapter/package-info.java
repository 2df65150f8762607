/**
 * Pieces the HTTP client adapters share (call budgets, request descriptions, retry decisions).
 * Implementation details; exported only to the adapter modules.
 */
@NullMarked
package dev.headway.internal.adapter;

import org.jspecify.annotations.NullMarked;
