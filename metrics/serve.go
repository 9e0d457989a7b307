package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"
)

// Handler serves the metrics of g in the Prometheus text format.
func Handler(g prometheus.Gatherer) http.Handler {
	return promhttp.HandlerFor(g, promhttp.HandlerOpts{})
}

// Serve listens on addr and serves g on /metrics until ctx is done. It
// returns the address it listens on (useful with port 0) once listening;
// serving goes on in the background and its failure is logged.
func Serve(ctx context.Context, addr string, g prometheus.Gatherer, log *zap.Logger) (net.Addr, error) {
	mux := http.NewServeMux()
	mux.Handle("/metrics", Handler(g))
	return ServeHandler(ctx, addr, mux, log)
}

// ServeHandler is Serve for a handler that serves /metrics beside other
// pages (engine run adds the status page and API on the same listener).
func ServeHandler(ctx context.Context, addr string, h http.Handler, log *zap.Logger) (net.Addr, error) {
	if log == nil {
		log = zap.NewNop()
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: listen on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics server stopped", zap.Error(err))
		}
	}()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	return ln.Addr(), nil
}
