package market

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// readCSVFile reads a price path file; errors name file:line.
func readCSVFile(name string) ([]Point, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("price path csv: %w", err)
	}
	defer f.Close()
	return readCSV(f, name)
}

// readCSV reads "ts,price" lines. ts is RFC 3339 or Unix milliseconds; the
// first line may be a header (a line whose ts is neither); blank lines and
// lines starting with # are skipped. Times must increase.
func readCSV(r io.Reader, name string) ([]Point, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 2
	cr.Comment = '#'
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = true
	var pts []Point
	for first := true; ; first = false {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("%s:%d: %w", name, pe.Line, pe.Err)
			}
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		at, tsErr := parseTS(rec[0])
		if tsErr != nil && first && isHeader(rec) {
			continue
		}
		if tsErr != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, tsErr)
		}
		price, err := decimal.NewFromString(strings.TrimSpace(rec[1]))
		if err != nil {
			return nil, fmt.Errorf("%s:%d: price %q is not a decimal number", name, line, rec[1])
		}
		if !price.IsPositive() {
			return nil, fmt.Errorf("%s:%d: price %s is not positive", name, line, price)
		}
		if n := len(pts); n > 0 && !at.After(pts[n-1].At) {
			return nil, fmt.Errorf("%s:%d: time %s is not after the previous line's %s", name, line, rec[0], pts[n-1].At.Format(time.RFC3339Nano))
		}
		pts = append(pts, Point{At: at, Price: price})
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("%s: no price lines", name)
	}
	return pts, nil
}

// isHeader reports whether a first line is a header: neither field is a number.
func isHeader(rec []string) bool {
	_, err := decimal.NewFromString(strings.TrimSpace(rec[1]))
	return err != nil
}

func parseTS(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.UnixMilli(ms).UTC(), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("time %q is neither RFC 3339 nor Unix milliseconds", s)
	}
	return t, nil
}
