package status

import (
	"bytes"
	"encoding/json"
	"net/http"
)

// Handler serves the status page (/status), the JSON of the whole status
// (/api/status) and of one rule with its recent traces (/api/rules/{name}),
// and, when the board has a Health, the probes /healthz and /readyz (200
// when they pass, 503 with the reasons when not). Everything is read from b
// at request time; nothing is cached. When the board can resume, a POST
// to /api/resume from the engine's machine lifts its halt (resumeHandler).
func Handler(b *Board) http.Handler {
	mux := http.NewServeMux()
	if h := b.opts.Health; h != nil {
		// The probes read the engine's heartbeat, never its lock: they
		// answer while a tick is stuck, which is when they matter.
		mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { serveProbe(w, h.Live()) })
		mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) { serveProbe(w, h.Ready()) })
	}
	mux.HandleFunc("GET /api/status", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, b.Snapshot())
	})
	mux.HandleFunc("GET /api/rules/{name}", func(w http.ResponseWriter, r *http.Request) {
		d, ok := b.Rule(r.PathValue("name"))
		if !ok {
			writeJSON(w, http.StatusNotFound, map[string]string{"error": "no rule named " + r.PathValue("name")})
			return
		}
		writeJSON(w, http.StatusOK, d)
	})
	if b.opts.Resume != nil {
		mux.Handle("POST "+ResumePath, resumeHandler(b))
	}
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, r *http.Request) {
		var buf bytes.Buffer
		if err := WritePage(&buf, b.Snapshot()); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(buf.Bytes())
	})
	return mux
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = w.Write(append(b, '\n'))
}
