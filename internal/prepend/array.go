// Package prepend holds lists that grow at the front into one shared
// array: a list of the newest hundred fills, polled again, is mostly the
// one before with a few new fills in front, and writing those into the
// free slots before it costs less than copying the hundred.
package prepend

import "sync/atomic"

// Room is how many lists' worth of new elements an array holds before the
// elements are copied into a new one.
const Room = 4

// Array is an array that successive lists share, each starting a few
// elements before the one before it. The slots before the first element
// any list holds are free; a new list writes its new elements there. A
// list, once handed out, never changes: a slot is written only while it
// is free, and claiming it (compare-and-swap on the count of free slots)
// makes it part of exactly one list.
type Array[T any] struct {
	elems []T
	free  atomic.Int64 // slots elems[:free] are free
}

// Prepend returns fresh followed by the first n elements of list, the
// array they are in and where they start in it. list starts at start in b
// (nil b: in none). The result is written in place when list starts where
// b's free slots end (no other list took them) and there is room; else it
// is copied into a new array with room before it.
func (b *Array[T]) Prepend(list []T, start int, fresh []T, n int) ([]T, *Array[T], int) {
	k := len(fresh)
	if b != nil && start >= k && b.free.CompareAndSwap(int64(start), int64(start-k)) {
		out := b.elems[start-k : start+n : start+n]
		copy(out, fresh)
		return out, b, start - k
	}
	nb := &Array[T]{elems: make([]T, Room*(k+n)+k+n)}
	at := len(nb.elems) - (k + n)
	out := nb.elems[at:]
	copy(out[copy(out, fresh):], list[:n])
	nb.free.Store(int64(at))
	return out, nb, at
}
