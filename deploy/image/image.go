// Package image builds the tickrules container image without a container
// engine: the static engine binary, the CA certificates it needs to reach
// the venue over HTTPS and a user entry, on no base image, written as an OCI
// image layout (docker load and podman load read it; skopeo or crane push
// it). It is the same image as deploy/Dockerfile describes; a test holds
// the two to the same settings.
package image

import (
	"archive/tar"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image's settings. deploy/Dockerfile says the same; TestDockerfile
// fails when they drift apart.
const (
	// BinaryPath is where the engine is in the image.
	BinaryPath = "/usr/local/bin/engine"
	// CACertsPath is the CA bundle Go's TLS reads on Linux.
	CACertsPath = "/etc/ssl/certs/ca-certificates.crt"
	// UID and GID are the engine's user: not root, and no name on the
	// host, as distroless images use.
	UID = 65532
	GID = 65532
	// User is the user name in the image's /etc/passwd.
	User = "tickrules"
	// StateDir is the volume of rule states, the intent journal and the
	// lock; the only place the engine writes, so the root file system can
	// be read-only.
	StateDir = "/var/lib/tickrules"
	// RulesDir is where the rule files are mounted (a ConfigMap on
	// Kubernetes).
	RulesDir = "/etc/tickrules/rules"
	// HTTPPort serves the status page, /healthz, /readyz and /metrics.
	HTTPPort = "9477"
)

// Entrypoint and Cmd are how the image starts: engine run against the live
// venue, the status listener on every interface of the container (its
// network is the container's own) so that probes and Prometheus reach it.
var (
	Entrypoint = []string{BinaryPath}
	Cmd        = []string{"run", "--venue", "live", "--rules", RulesDir, "--state-dir", StateDir,
		"--metrics-addr", "0.0.0.0:" + HTTPPort, "--log-format", "json"}
	// Healthcheck is the container's health command: engine status asks
	// the engine's own /healthz (a static image has no curl).
	Healthcheck = []string{"CMD", BinaryPath, "status", "--addr", "127.0.0.1:" + HTTPPort, "--probe", "healthz"}
)

// HealthInterval, HealthTimeout, HealthStartPeriod and HealthRetries tune
// the container's health check.
const (
	HealthInterval    = 30 * time.Second
	HealthTimeout     = 10 * time.Second
	HealthStartPeriod = 5 * time.Minute // start-up reads the catalog and runs the preflight
	HealthRetries     = 3
)

// Options are the inputs of an image.
type Options struct {
	// Binary is the static engine binary (CGO_ENABLED=0).
	Binary string
	// CACerts is the CA bundle to put in the image (default
	// /etc/ssl/certs/ca-certificates.crt of the building machine).
	CACerts string
	// Created is the image's creation time, also every file's; the same
	// inputs and time give the same image digest (default: the Unix epoch,
	// or SOURCE_DATE_EPOCH when set).
	Created time.Time
	// Version labels the image (org.opencontainers.image.version).
	Version string
	// Arch is the binary's architecture (default: this machine's).
	Arch string
}

// Build returns the image of opts.
func Build(opts Options) (v1.Image, error) {
	if opts.CACerts == "" {
		opts.CACerts = CACertsPath
	}
	if opts.Created.IsZero() {
		opts.Created = time.Unix(0, 0).UTC()
		if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
			sec, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("SOURCE_DATE_EPOCH=%s: %w", s, err)
			}
			opts.Created = time.Unix(sec, 0).UTC()
		}
	}
	bin, err := os.ReadFile(opts.Binary)
	if err != nil {
		return nil, fmt.Errorf("read the engine binary: %w", err)
	}
	certs, err := os.ReadFile(opts.CACerts)
	if err != nil {
		return nil, fmt.Errorf("read the CA certificates (the engine needs them for the venue's HTTPS): %w", err)
	}
	files, err := rootFS(opts.Created, bin, certs)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(files)), nil },
		tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, fmt.Errorf("build the layer: %w", err)
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{Layer: layer, History: v1.History{
		Created: v1.Time{Time: opts.Created}, CreatedBy: "tickrules deploy/image: engine, CA certificates, user " + User}})
	if err != nil {
		return nil, fmt.Errorf("add the layer: %w", err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.Architecture, cf.OS = cmp.Or(opts.Arch, runtime.GOARCH), "linux"
	cf.Created = v1.Time{Time: opts.Created}
	cf.Config = v1.Config{
		User:         strconv.Itoa(UID) + ":" + strconv.Itoa(GID),
		Entrypoint:   Entrypoint,
		Cmd:          Cmd,
		WorkingDir:   StateDir,
		Env:          []string{"PATH=/usr/local/bin"},
		Volumes:      map[string]struct{}{StateDir: {}},
		ExposedPorts: map[string]struct{}{HTTPPort + "/tcp": {}},
		StopSignal:   "SIGTERM",
		Healthcheck: &v1.HealthConfig{Test: Healthcheck, Interval: HealthInterval, Timeout: HealthTimeout,
			StartPeriod: HealthStartPeriod, Retries: HealthRetries},
		Labels: map[string]string{
			"org.opencontainers.image.title":       "tickrules",
			"org.opencontainers.image.description": "tickrules engine: YAML trading rules for a futures and US-stock-pair account",
			"org.opencontainers.image.source":      "https://github.com/tickrules/tickrules",
			"org.opencontainers.image.version":     opts.Version,
		},
	}
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, fmt.Errorf("set the image config: %w", err)
	}
	return img, nil
}

// WriteLayout writes img as an OCI image layout in dir (created when
// missing), tagged ref in its index (org.opencontainers.image.ref.name).
func WriteLayout(dir string, img v1.Image, ref string) error {
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("write the image layout %s: %w", dir, err)
	}
	if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": ref})); err != nil {
		return fmt.Errorf("write the image to %s: %w", dir, err)
	}
	return nil
}

// rootFS is the image's one layer as a tar: the directories, /etc/passwd
// and /etc/group naming the user, the CA bundle, the engine, and the state
// directory owned by the user (a volume mounted there starts with its
// owner and mode).
func rootFS(mtime time.Time, bin, certs []byte) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dir := func(name string, mode int64, uid int) error {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: mode, Uid: uid, Gid: uid, ModTime: mtime, Format: tar.FormatPAX})
	}
	file := func(name string, mode int64, body []byte) error {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(body)), ModTime: mtime, Format: tar.FormatPAX}); err != nil {
			return err
		}
		_, err := tw.Write(body)
		return err
	}
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\n%s:x:%d:%d:tickrules engine:%s:/sbin/nologin\n", User, UID, GID, StateDir)
	group := fmt.Sprintf("root:x:0:\n%s:x:%d:\n", User, GID)
	steps := []func() error{
		func() error { return dir("etc", 0o755, 0) },
		func() error { return file("etc/passwd", 0o644, []byte(passwd)) },
		func() error { return file("etc/group", 0o644, []byte(group)) },
		func() error { return dir("etc/ssl", 0o755, 0) },
		func() error { return dir("etc/ssl/certs", 0o755, 0) },
		func() error { return file(CACertsPath[1:], 0o644, certs) },
		func() error { return dir("etc/tickrules", 0o755, 0) },
		func() error { return dir(RulesDir[1:], 0o755, 0) },
		// Go's os.TempDir; the engine writes no temporary files, and on
		// a read-only root this stays empty.
		func() error { return dir("tmp", 0o1777, 0) },
		func() error { return dir("usr", 0o755, 0) },
		func() error { return dir("usr/local", 0o755, 0) },
		func() error { return dir("usr/local/bin", 0o755, 0) },
		func() error { return file(BinaryPath[1:], 0o755, bin) },
		func() error { return dir("var", 0o755, 0) },
		func() error { return dir("var/lib", 0o755, 0) },
		func() error { return dir(StateDir[1:], 0o700, UID) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, fmt.Errorf("build the image's files: %w", err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("build the image's files: %w", err)
	}
	return buf.Bytes(), nil
}
