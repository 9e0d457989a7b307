package status

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// ErrNoRule is returned by FetchRule when the engine has no such rule.
var ErrNoRule = errors.New("no such rule")

// FetchSnapshot reads /api/status of the engine at addr (host:port or a
// URL).
func FetchSnapshot(ctx context.Context, c *http.Client, addr string) (Snapshot, error) {
	var s Snapshot
	err := fetch(ctx, c, baseURL(addr)+"/api/status", &s)
	return s, err
}

// FetchRule reads /api/rules/{name} of the engine at addr.
func FetchRule(ctx context.Context, c *http.Client, addr, name string) (RuleDetail, error) {
	var d RuleDetail
	err := fetch(ctx, c, baseURL(addr)+"/api/rules/"+url.PathEscape(name), &d)
	return d, err
}

// FetchProbe reads the probe at path (/healthz or /readyz) of the engine at
// addr. A probe that fails answers 503 with its reasons: that is a Probe
// with OK false, not an error.
func FetchProbe(ctx context.Context, c *http.Client, addr, path string) (Probe, error) {
	var p Probe
	u := baseURL(addr) + path
	code, body, err := ask(ctx, c, http.MethodGet, u, 1<<20)
	if err != nil {
		return p, err
	}
	if code != http.StatusOK && code != http.StatusServiceUnavailable {
		return p, fmt.Errorf("%s: HTTP %d: %s", u, code, strings.TrimSpace(string(body)))
	}
	if err := json.Unmarshal(body, &p); err != nil {
		return p, fmt.Errorf("%s: not a probe answer: %w", u, err)
	}
	if p.OK != (code == http.StatusOK) {
		return p, fmt.Errorf("%s: HTTP %d disagrees with its answer (ok %t)", u, code, p.OK)
	}
	return p, nil
}

func baseURL(addr string) string {
	if strings.Contains(addr, "://") {
		return strings.TrimRight(addr, "/")
	}
	return "http://" + addr
}

func fetch(ctx context.Context, c *http.Client, u string, v any) error {
	code, body, err := ask(ctx, c, http.MethodGet, u, 16<<20)
	if err != nil {
		return err
	}
	if code == http.StatusNotFound && strings.Contains(u, "/api/rules/") {
		return ErrNoRule
	}
	if code != http.StatusOK {
		return fmt.Errorf("%s: HTTP %d: %s", u, code, strings.TrimSpace(string(body)))
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%s: not a status answer: %w", u, err)
	}
	return nil
}

// ask sends a request without a body to the engine at u and returns the
// answer's status code and body (at most limit bytes).
func ask(ctx context.Context, c *http.Client, method, u string, limit int64) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return 0, nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("no engine answers at %s (is engine run going, and on this address?): %w", u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	if err != nil {
		return 0, nil, fmt.Errorf("read %s: %w", u, err)
	}
	return resp.StatusCode, body, nil
}
