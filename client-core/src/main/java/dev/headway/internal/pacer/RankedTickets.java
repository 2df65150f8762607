package dev.headway.internal.pacer;

import org.jspecify.annotations.Nullable;

/**
 * A set of arrival tickets that counts the tickets below a given one in a few steps: the callers
 * in line waiting for one policy, so that a caller counts those ahead of it without a walk of
 * the line. A treap (a binary search tree by ticket, a heap by a priority drawn from the ticket's
 * hash, so balanced whatever order the tickets come in) whose nodes know the size of their
 * subtree: adding, removing and counting take a step per level, about {@code 2 ln n} levels for
 * {@code n} tickets. Not thread-safe: guarded by the partition's monitor, as its line is.
 */
final class RankedTickets {
  private static final class Node {
    final long ticket;
    final long priority;
    int size = 1;
    @Nullable Node left;
    @Nullable Node right;

    Node(long ticket) {
      this.ticket = ticket;
      this.priority = mix(ticket);
    }
  }

  private @Nullable Node root;
  /** The nodes looked at by {@link #below}, in all (the work the counts cost). */
  long steps;

  /** Returns how many tickets the set holds. */
  int size() {
    return size(root);
  }

  /** Adds {@code ticket} (not already in the set). */
  void add(long ticket) {
    root = insert(root, new Node(ticket));
  }

  /** Removes {@code ticket}, if in the set. */
  void remove(long ticket) {
    root = remove(root, ticket);
  }

  /** Returns how many tickets in the set are below {@code ticket}. */
  long below(long ticket) {
    long n = 0;
    for (Node node = root; node != null; ) {
      steps++;
      if (node.ticket < ticket) {
        n += size(node.left) + 1;
        node = node.right;
      } else {
        node = node.left;
      }
    }
    return n;
  }

  private static int size(@Nullable Node node) {
    return node == null ? 0 : node.size;
  }

  /** Returns {@code node}'s tree with {@code added} in it. */
  private static Node insert(@Nullable Node node, Node added) {
    if (node == null) {
      return added;
    }
    if (added.ticket < node.ticket) {
      Node left = insert(node.left, added);
      node.left = left;
      if (left.priority > node.priority) {
        node.left = left.right;
        resize(node);
        left.right = node;
        node = left;
      }
    } else {
      Node right = insert(node.right, added);
      node.right = right;
      if (right.priority > node.priority) {
        node.right = right.left;
        resize(node);
        right.left = node;
        node = right;
      }
    }
    resize(node);
    return node;
  }

  /** Returns {@code node}'s tree without {@code ticket}. */
  private static @Nullable Node remove(@Nullable Node node, long ticket) {
    if (node == null) {
      return null;
    }
    if (ticket == node.ticket) {
      return merge(node.left, node.right);
    }
    if (ticket < node.ticket) {
      node.left = remove(node.left, ticket);
    } else {
      node.right = remove(node.right, ticket);
    }
    resize(node);
    return node;
  }

  /** Joins two trees, every ticket of {@code a} below every ticket of {@code b}. */
  private static @Nullable Node merge(@Nullable Node a, @Nullable Node b) {
    if (a == null) {
      return b;
    }
    if (b == null) {
      return a;
    }
    if (a.priority > b.priority) {
      a.right = merge(a.right, b);
      resize(a);
      return a;
    }
    b.left = merge(a, b.left);
    resize(b);
    return b;
  }

  private static void resize(Node node) {
    node.size = size(node.left) + size(node.right) + 1;
  }

  /** A ticket's priority: its bits mixed (SplitMix64's finalizer), the same on every run. */
  private static long mix(long x) {
    x = (x ^ (x >>> 30)) * 0xbf58476d1ce4e5b9L;
    x = (x ^ (x >>> 27)) * 0x94d049bb133111ebL;
    return x ^ (x >>> 31);
  }
}
