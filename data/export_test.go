package data

import "time"

// The names below let the external tests (package data_test: the tests that
// download from the simulator, which imports this package) use what is
// unexported here.

// CandleHeader is candleHeader.
const CandleHeader = candleHeader

var (
	FormatCandles = formatCandles
	MonthOf       = monthOf
	ParseCandles  = parseCandles
	WriteAtomic   = writeAtomic
	WriteManifest = writeManifest
)

// Manifest is manifest.
type Manifest = manifest

// MonthFile is monthFile.
func (s Series) MonthFile(root string, t time.Time) string { return s.monthFile(root, t) }

// SetWriteHook makes d call hook between writing a file and renaming it
// into place: a non-nil error stops the write there, as a kill would.
func SetWriteHook(d *Downloader, hook func(path string) error) { d.write.hook = hook }
