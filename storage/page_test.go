package storage

import (
	"errors"
	"slices"
	"strconv"
	"testing"
)

// pagedInts is a list of 0..n-1 served in pages the way a store serves them: First cut down to
// MaxPageSize, the cursor the index after the page's last item. It records the pages asked for.
type pagedInts struct {
	n     int
	asked []Page
}

func (l *pagedInts) list(p Page) ([]int, string, error) {
	l.asked = append(l.asked, p)
	from := 0
	if p.After != "" {
		var err error
		if from, err = strconv.Atoi(p.After); err != nil {
			return nil, "", err
		}
	}
	to := min(from+min(p.First, MaxPageSize), l.n)
	var items []int
	for i := from; i < to; i++ {
		items = append(items, i)
	}
	if to == l.n {
		return items, "", nil
	}
	return items, strconv.Itoa(to), nil
}

func TestEachPage(t *testing.T) {
	for _, n := range []int{0, 1, MaxPageSize - 1, MaxPageSize, MaxPageSize + 1, 3*MaxPageSize + 7} {
		l := &pagedInts{n: n}
		var got []int
		if err := EachPage(l.list, func(i int) { got = append(got, i) }); err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		want := make([]int, n)
		for i := range want {
			want[i] = i
		}
		if !slices.Equal(got, want) {
			t.Errorf("n=%d: got %d items %v", n, len(got), got)
		}
		// One page of MaxPageSize per hundred items, the first without a cursor, each next one
		// after the cursor the one before gave.
		if wantPages := max(1, (n+MaxPageSize-1)/MaxPageSize); len(l.asked) != wantPages {
			t.Errorf("n=%d: %d pages asked for, want %d", n, len(l.asked), wantPages)
		}
		for i, p := range l.asked {
			want := Page{First: MaxPageSize}
			if i > 0 {
				want.After = strconv.Itoa(i * MaxPageSize)
			}
			if p != want {
				t.Errorf("n=%d: page %d is %+v, want %+v", n, i, p, want)
			}
		}
	}
}

// A failing page ends the walk with its error, after the items of the pages before it.
func TestEachPageStopsAtError(t *testing.T) {
	boom := errors.New("boom")
	l := &pagedInts{n: 3 * MaxPageSize}
	list := func(p Page) ([]int, string, error) {
		if len(l.asked) == 2 {
			return nil, "", boom
		}
		return l.list(p)
	}
	seen := 0
	if err := EachPage(list, func(int) { seen++ }); !errors.Is(err, boom) {
		t.Fatalf("err %v, want %v", err, boom)
	}
	if seen != 2*MaxPageSize {
		t.Errorf("%d items seen before the error, want %d", seen, 2*MaxPageSize)
	}
}
