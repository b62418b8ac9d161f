"use client";
// Cursor pagination for the business lists ({ data, nextCursor }). tRPC's useInfiniteQuery adds
// a `direction` field to the input, which the procedures' strict input schemas refuse, so pages
// are plain queries (one per cursor) combined here.
import { useState } from "react";

export function useCursors(resetKey: string) {
  const [state, setState] = useState<{ key: string; cursors: Array<string | undefined> }>({ key: resetKey, cursors: [undefined] });
  const cursors = state.key === resetKey ? state.cursors : [undefined];
  return { cursors, add: (c: string) => setState({ key: resetKey, cursors: [...cursors, c] }) };
}

interface PageResult<T> {
  data?: { data: T[]; nextCursor: string | null };
  isLoading: boolean;
  error: { message: string } | null;
  refetch: () => unknown;
}

export function combinePages<T>(results: PageResult<T>[], add: (c: string) => void) {
  const first = results[0];
  const last = results[results.length - 1];
  const next = last?.data?.nextCursor ?? null;
  return {
    rows: results.flatMap((r) => r.data?.data ?? []),
    isLoading: !!first?.isLoading,
    error: first?.error ?? null,
    refetch: () => results.forEach((r) => r.refetch()),
    hasNextPage: !!next,
    isFetchingNextPage: results.length > 1 && !!last?.isLoading,
    fetchNextPage: () => next && add(next),
  };
}
