package data

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tickrules/tickrules/exchange"
)

// Candle is one stored candle. The numbers are the venue's decimal strings
// as sent (exchange.Num): nothing is rounded on the way to disk or back.
type Candle struct {
	Time        time.Time // the candle's start, UTC
	Open        exchange.Num
	High        exchange.Num
	Low         exchange.Num
	Close       exchange.Num
	BaseVolume  exchange.Num
	QuoteVolume exchange.Num
}

// candleHeader is the first line of every candle file.
const candleHeader = "time,open,high,low,close,base_volume,quote_volume"

// fundingHeader is the first line of the funding file.
const fundingHeader = "time,rate"

// timeLayout is how times are written: RFC 3339 in UTC, to the second,
// which spreadsheets, pandas and DuckDB read as a timestamp.
const timeLayout = "2006-01-02T15:04:05Z"

// fromVenue converts a venue row.
func fromVenue(c exchange.Candle) Candle {
	return Candle{Time: c.TS.Time(), Open: c.Open, High: c.High, Low: c.Low, Close: c.Close, BaseVolume: c.BaseVol, QuoteVolume: c.QuoteVol}
}

// formatCandles writes rows (oldest first) as a candle file.
func formatCandles(rows []Candle) []byte {
	b := make([]byte, 0, len(candleHeader)+1+len(rows)*64)
	b = append(b, candleHeader...)
	b = append(b, '\n')
	for _, c := range rows {
		b = c.Time.UTC().AppendFormat(b, timeLayout)
		for _, n := range [...]exchange.Num{c.Open, c.High, c.Low, c.Close, c.BaseVolume, c.QuoteVolume} {
			b = append(b, ',')
			b = append(b, n...)
		}
		b = append(b, '\n')
	}
	return b
}

// parseCandles reads a candle file. The numbers are substrings of content:
// a month of minutes is one allocation for the text and one for the rows.
func parseCandles(content, name string) ([]Candle, error) {
	header, rest, _ := strings.Cut(content, "\n")
	if strings.TrimRight(header, "\r") != candleHeader {
		return nil, fmt.Errorf("%s: first line %q, want %q", name, header, candleHeader)
	}
	rows := make([]Candle, 0, strings.Count(rest, "\n")+1)
	for line := 2; rest != ""; line++ {
		var l string
		l, rest, _ = strings.Cut(rest, "\n")
		l = strings.TrimRight(l, "\r")
		if l == "" {
			continue
		}
		var f [7]string
		n := 0
		for n < 6 {
			i := strings.IndexByte(l, ',')
			if i < 0 {
				break
			}
			f[n], l = l[:i], l[i+1:]
			n++
		}
		f[n] = l
		if n != 6 || strings.IndexByte(l, ',') >= 0 {
			return nil, fmt.Errorf("%s:%d: want 7 fields", name, line)
		}
		t, err := parseTime(f[0])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		for _, v := range f[1:] {
			if v == "" {
				return nil, fmt.Errorf("%s:%d: an empty number", name, line)
			}
		}
		rows = append(rows, Candle{Time: t, Open: exchange.Num(f[1]), High: exchange.Num(f[2]), Low: exchange.Num(f[3]),
			Close: exchange.Num(f[4]), BaseVolume: exchange.Num(f[5]), QuoteVolume: exchange.Num(f[6])})
	}
	return rows, nil
}

// parseTime reads timeLayout without time.Parse's generality: the load of
// a year of minutes spends most of its time here otherwise.
func parseTime(s string) (time.Time, error) {
	if len(s) != len(timeLayout) || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != 'Z' {
		return time.Time{}, fmt.Errorf("time %q: want %s", s, timeLayout)
	}
	num := func(a, b int) int {
		v := 0
		for i := a; i < b; i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	y, mo, d, h, mi, se := num(0, 4), num(5, 7), num(8, 10), num(11, 13), num(14, 16), num(17, 19)
	if y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 || se > 59 {
		return time.Time{}, fmt.Errorf("time %q: not a valid time", s)
	}
	t := time.Date(y, time.Month(mo), d, h, mi, se, 0, time.UTC)
	if t.Day() != d {
		return time.Time{}, fmt.Errorf("time %q: no such day", s)
	}
	return t, nil
}

// FundingRate is one stored funding settlement.
type FundingRate struct {
	Time time.Time
	Rate exchange.Num
}

func formatFunding(rows []FundingRate) []byte {
	var b strings.Builder
	b.WriteString(fundingHeader + "\n")
	for _, f := range rows {
		b.WriteString(f.Time.UTC().Format(timeLayout))
		b.WriteByte(',')
		b.WriteString(string(f.Rate))
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

func parseFunding(content, name string) ([]FundingRate, error) {
	header, rest, _ := strings.Cut(content, "\n")
	if strings.TrimRight(header, "\r") != fundingHeader {
		return nil, fmt.Errorf("%s: first line %q, want %q", name, header, fundingHeader)
	}
	var out []FundingRate
	for line := 2; rest != ""; line++ {
		var l string
		l, rest, _ = strings.Cut(rest, "\n")
		l = strings.TrimRight(l, "\r")
		if l == "" {
			continue
		}
		ts, rate, ok := strings.Cut(l, ",")
		if !ok || rate == "" {
			return nil, fmt.Errorf("%s:%d: want time,rate", name, line)
		}
		t, err := parseTime(ts)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if _, err := strconv.ParseFloat(rate, 64); err != nil {
			return nil, fmt.Errorf("%s:%d: rate %q is not a number", name, line, rate)
		}
		out = append(out, FundingRate{Time: t, Rate: exchange.Num(rate)})
	}
	return out, nil
}
