package status

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// ErrResumeRefused is returned by Resume when the engine refuses to lift
// its halt for this caller (not on its machine).
var ErrResumeRefused = errors.New("resume refused")

// ResumePath is where a POST lifts a halt: engine resume and the status
// page's button send it.
const ResumePath = "/api/resume"

// resumeHandler lifts the halt and the SIGUSR1 kill switch, as SIGUSR2
// does, for a caller on the engine's own machine. Lifting lets orders that
// open positions go again, so it is refused to anyone who could not also
// send the engine a signal: a request from another machine, one whose Host
// is not a loopback name (a web page that rebinds its DNS name to
// 127.0.0.1), and, through http.CrossOriginProtection, a browser's request
// from another site's page. A form from the status page is sent back to
// it; any other caller gets the kill switch as it is after the lift.
func resumeHandler(b *Board) http.Handler {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := fromThisMachine(r); err != nil {
			writeJSON(w, http.StatusForbidden, map[string]string{"error": err.Error()})
			return
		}
		if err := b.opts.Resume(r.RemoteAddr); err != nil {
			writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
			return
		}
		if strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
			http.Redirect(w, r, "/status", http.StatusSeeOther)
			return
		}
		var k KillSwitch
		if b.opts.Guard != nil {
			k.On, k.Reason = b.opts.Guard.Killed()
		}
		writeJSON(w, http.StatusOK, k)
	})
	return http.NewCrossOriginProtection().Handler(h)
}

// fromThisMachine fails unless r came from a loopback address and names a
// loopback host.
func fromThisMachine(r *http.Request) error {
	refuse := fmt.Errorf("%w: a halt is lifted only from the engine's own machine (run engine resume there, open the status page at http://127.0.0.1:PORT/status, or send the engine SIGUSR2)", ErrResumeRefused)
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return refuse
	}
	if ip, err := netip.ParseAddr(host); err != nil || !ip.Unmap().IsLoopback() {
		return refuse
	}
	name := r.Host
	if h, _, err := net.SplitHostPort(name); err == nil {
		name = h
	}
	if strings.EqualFold(name, "localhost") {
		return nil
	}
	if ip, err := netip.ParseAddr(strings.Trim(name, "[]")); err == nil && ip.Unmap().IsLoopback() {
		return nil
	}
	return refuse
}

// Resume asks the engine at addr to lift its halt and the SIGUSR1 kill
// switch, as SIGUSR2 does, and returns the kill switch after it: still on
// when a kill-switch file exists. It must run on the engine's machine.
func Resume(ctx context.Context, c *http.Client, addr string) (KillSwitch, error) {
	var k KillSwitch
	u := baseURL(addr) + ResumePath
	code, body, err := ask(ctx, c, http.MethodPost, u, 1<<20)
	if err != nil {
		return k, err
	}
	if code != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(body, &e) != nil || e.Error == "" {
			e.Error = strings.TrimSpace(string(body))
		}
		if code == http.StatusForbidden {
			return k, fmt.Errorf("%w: %s", ErrResumeRefused, strings.TrimPrefix(e.Error, ErrResumeRefused.Error()+": "))
		}
		return k, fmt.Errorf("%s: HTTP %d: %s", u, code, e.Error)
	}
	if err := json.Unmarshal(body, &k); err != nil {
		return k, fmt.Errorf("%s: not a kill switch answer: %w", u, err)
	}
	return k, nil
}
