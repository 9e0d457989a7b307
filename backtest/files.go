package backtest

import (
	"fmt"
	"os"
	"path/filepath"
)

// Report file names inside the output directory.
const (
	JSONFile = "report.json"
	HTMLFile = "report.html"
)

// WriteFiles writes dir/report.json and dir/report.html, creating dir.
func (r *Report) WriteFiles(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("backtest: report directory: %w", err)
	}
	js, err := r.JSON()
	if err != nil {
		return fmt.Errorf("backtest: encode report: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, JSONFile), js, 0o644); err != nil {
		return fmt.Errorf("backtest: write report: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, HTMLFile), r.HTML(), 0o644); err != nil {
		return fmt.Errorf("backtest: write report: %w", err)
	}
	return nil
}
