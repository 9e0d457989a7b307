package prepend

import (
	"slices"
	"sync"
	"testing"
)

// TestPrependNeverChangesAList: lists made from one another in place never
// change afterwards; two lists made from the same one (two pollers at
// once) do not write over each other, the second is a copy; and when the
// free slots run out the list moves to a new array.
func TestPrependNeverChangesAList(t *testing.T) {
	first, b, start := (*Array[string])(nil).Prepend([]string{"1", "2"}, 0, []string{"3"}, 2)
	a, ba, _ := b.Prepend(first, start, []string{"4a"}, 3)
	c, bc, _ := b.Prepend(first, start, []string{"4c"}, 3)
	if !slices.Equal(first, []string{"3", "1", "2"}) {
		t.Errorf("first list %v", first)
	}
	if !slices.Equal(a, []string{"4a", "3", "1", "2"}) || ba != b {
		t.Errorf("the list made in place: %v (same array %v)", a, ba == b)
	}
	if !slices.Equal(c, []string{"4c", "3", "1", "2"}) || bc == b {
		t.Errorf("the second list from the same one: %v (same array %v, want a copy)", c, bc == b)
	}
	if !slices.Equal(a, []string{"4a", "3", "1", "2"}) || !slices.Equal(first, []string{"3", "1", "2"}) {
		t.Errorf("lists changed: %v, %v", a, first)
	}

	// A chain of lists of the newest 4, one new element each: every list
	// stays as it was made, and the arrays are few.
	var lists [][]int
	var copies [][]int
	list, arr, at := (*Array[int])(nil).Prepend(nil, 0, []int{0}, 0)
	arrays := map[*Array[int]]bool{arr: true}
	for i := 1; i < 200; i++ {
		list, arr, at = arr.Prepend(list, at, []int{i}, min(len(list), 3))
		arrays[arr] = true
		lists, copies = append(lists, list), append(copies, slices.Clone(list))
	}
	for i := range lists {
		if !slices.Equal(lists[i], copies[i]) {
			t.Fatalf("list %d changed to %v, was %v", i, lists[i], copies[i])
		}
	}
	if len(arrays) > 200/Room {
		t.Errorf("%d arrays for 200 lists", len(arrays))
	}
}

// TestPrependConcurrently: lists made at once from the same list each get
// their own slots (run with -race).
func TestPrependConcurrently(t *testing.T) {
	base, b, start := (*Array[int])(nil).Prepend([]int{1, 2, 3}, 0, []int{0}, 3)
	var wg sync.WaitGroup
	out := make([][]int, 8)
	for g := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[g], _, _ = b.Prepend(base, start, []int{100 + g}, 4)
		}()
	}
	wg.Wait()
	for g, l := range out {
		if !slices.Equal(l, []int{100 + g, 0, 1, 2, 3}) {
			t.Errorf("goroutine %d: %v", g, l)
		}
	}
}
