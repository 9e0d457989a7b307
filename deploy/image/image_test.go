package image

import (
	"archive/tar"
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/google/go-containerregistry/pkg/v1/validate"
)

// testImage builds the image from a stand-in binary (this test binary: any
// executable does) and a stand-in CA bundle, writes it as an OCI layout
// and reads it back from there, as podman load would.
func testImage(t *testing.T) (img v1.Image, bin, certs []byte) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if bin, err = os.ReadFile(exe); err != nil {
		t.Fatal(err)
	}
	certs = []byte("-----BEGIN CERTIFICATE-----\nstand-in\n-----END CERTIFICATE-----\n")
	certFile := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(certFile, certs, 0o644); err != nil {
		t.Fatal(err)
	}
	built, err := Build(Options{Binary: exe, CACerts: certFile, Version: "v1.2.3", Arch: "amd64",
		Created: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "oci")
	if err := WriteLayout(dir, built, "v1.2.3"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"oci-layout", "index.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the layout lacks %s: %v", f, err)
		}
	}
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Manifests) != 1 || m.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != "v1.2.3" {
		t.Fatalf("index %+v, want one image tagged v1.2.3", m.Manifests)
	}
	if img, err = idx.Image(m.Manifests[0].Digest); err != nil {
		t.Fatal(err)
	}
	// Every digest and size in the manifest matches its blob.
	if err := validate.Image(img); err != nil {
		t.Fatal(err)
	}
	want, _ := built.Digest()
	if got, _ := img.Digest(); got != want {
		t.Errorf("the layout holds %s, the builder made %s", got, want)
	}
	return img, bin, certs
}

func TestImageConfig(t *testing.T) {
	img, _, _ := testImage(t)
	mt, err := img.MediaType()
	if err != nil || mt != types.OCIManifestSchema1 {
		t.Errorf("manifest media type %s (%v), want OCI", mt, err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cf.Config
	checks := []struct {
		name      string
		got, want any
	}{
		{"os/arch", cf.OS + "/" + cf.Architecture, "linux/amd64"},
		{"user (not root)", c.User, "65532:65532"},
		{"entrypoint", c.Entrypoint, []string{"/usr/local/bin/engine"}},
		{"cmd", c.Cmd, []string{"run", "--venue", "live", "--rules", "/etc/tickrules/rules", "--state-dir", "/var/lib/tickrules",
			"--metrics-addr", "0.0.0.0:9477", "--log-format", "json"}},
		{"volumes", c.Volumes, map[string]struct{}{"/var/lib/tickrules": {}}},
		{"ports", c.ExposedPorts, map[string]struct{}{"9477/tcp": {}}},
		{"working dir", c.WorkingDir, "/var/lib/tickrules"},
		{"stop signal", c.StopSignal, "SIGTERM"},
		{"healthcheck", c.Healthcheck != nil && slices.Equal(c.Healthcheck.Test,
			[]string{"CMD", "/usr/local/bin/engine", "status", "--addr", "127.0.0.1:9477", "--probe", "healthz"}), true},
		{"healthcheck timing", c.Healthcheck != nil && c.Healthcheck.Interval == 30*time.Second && c.Healthcheck.Retries == 3, true},
		{"version label", c.Labels["org.opencontainers.image.version"], "v1.2.3"},
		{"created", cf.Created.UTC(), time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)},
		{"one layer", len(cf.RootFS.DiffIDs), 1},
	}
	for _, ch := range checks {
		t.Run(ch.name, func(t *testing.T) {
			if !reflect.DeepEqual(ch.got, ch.want) {
				t.Errorf("got %#v, want %#v", ch.got, ch.want)
			}
		})
	}
}

// entry is one file of the image.
type entry struct {
	mode     int64
	uid, gid int
	dir      bool
	body     []byte
}

func TestImageContents(t *testing.T) {
	img, bin, certs := testImage(t)
	files := map[string]entry{}
	tr := tar.NewReader(mutate.Extract(img))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files["/"+strings.TrimSuffix(h.Name, "/")] = entry{mode: h.Mode, uid: h.Uid, gid: h.Gid, dir: h.Typeflag == tar.TypeDir, body: body}
	}
	var names []string
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	wantNames := []string{"/etc", "/etc/group", "/etc/passwd", "/etc/ssl", "/etc/ssl/certs", "/etc/ssl/certs/ca-certificates.crt",
		"/etc/tickrules", "/etc/tickrules/rules", "/tmp", "/usr", "/usr/local", "/usr/local/bin", "/usr/local/bin/engine",
		"/var", "/var/lib", "/var/lib/tickrules"}
	if !slices.Equal(names, wantNames) {
		t.Errorf("files %q, want exactly %q (no shell, no package manager)", names, wantNames)
	}
	checks := []struct {
		path string
		mode int64
		uid  int
		body []byte // nil: not compared
	}{
		{"/usr/local/bin/engine", 0o755, 0, bin},
		{"/etc/ssl/certs/ca-certificates.crt", 0o644, 0, certs},
		{"/var/lib/tickrules", 0o700, 65532, nil}, // the state volume starts owned by the engine's user
		{"/tmp", 0o1777, 0, nil},
	}
	for _, c := range checks {
		t.Run(c.path, func(t *testing.T) {
			e, ok := files[c.path]
			if !ok {
				t.Fatal("missing")
			}
			if e.mode != c.mode || e.uid != c.uid || e.gid != c.uid {
				t.Errorf("mode %o owner %d:%d, want %o %d:%d", e.mode, e.uid, e.gid, c.mode, c.uid, c.uid)
			}
			if c.body != nil && !bytes.Equal(e.body, c.body) {
				t.Errorf("contents differ from the input (%d bytes, want %d)", len(e.body), len(c.body))
			}
		})
	}
	if !strings.Contains(string(files["/etc/passwd"].body), "tickrules:x:65532:65532:") {
		t.Errorf("/etc/passwd does not name the engine's user:\n%s", files["/etc/passwd"].body)
	}
	for n, e := range files {
		if e.mode&0o6000 != 0 {
			t.Errorf("%s is setuid or setgid (%o)", n, e.mode)
		}
		if !e.dir && e.uid != 0 {
			t.Errorf("%s belongs to %d: only the state directory is the engine's", n, e.uid)
		}
	}
}

// TestImageReproducible: the same binary, certificates and time give the
// same image, byte for byte.
func TestImageReproducible(t *testing.T) {
	a, _, _ := testImage(t)
	b, _, _ := testImage(t)
	da, _ := a.Digest()
	db, _ := b.Digest()
	if da != db {
		t.Errorf("two builds of the same inputs: %s and %s", da, db)
	}
}

// TestDockerfile holds deploy/Dockerfile's final stage to the settings the
// OCI builder uses: the two describe the same image.
func TestDockerfile(t *testing.T) {
	f, err := os.Open("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	final := map[string]string{} // instruction -> arguments, of the last stage
	var stages int
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		instr, args, _ := strings.Cut(line, " ")
		instr = strings.ToUpper(instr)
		if instr == "FROM" {
			stages++
			final = map[string]string{"FROM": args}
			continue
		}
		final[instr] = args
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	jsonArgs := func(s string) []string {
		var v []string
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Errorf("%q is not a JSON array (exec form): %v", s, err)
		}
		return v
	}
	if stages < 2 || final["FROM"] != "scratch" {
		t.Errorf("the final stage is FROM %q, want scratch after a build stage", final["FROM"])
	}
	if got := final["USER"]; got != "65532:65532" {
		t.Errorf("USER %q, want 65532:65532", got)
	}
	if got := jsonArgs(final["ENTRYPOINT"]); !slices.Equal(got, Entrypoint) {
		t.Errorf("ENTRYPOINT %q, want %q", got, Entrypoint)
	}
	if got := jsonArgs(final["CMD"]); !slices.Equal(got, Cmd) {
		t.Errorf("CMD %q, want %q", got, Cmd)
	}
	if got := jsonArgs(final["VOLUME"]); !slices.Equal(got, []string{StateDir}) {
		t.Errorf("VOLUME %q, want %q", got, StateDir)
	}
	if got := final["EXPOSE"]; got != HTTPPort {
		t.Errorf("EXPOSE %q, want %s", got, HTTPPort)
	}
	if got := final["WORKDIR"]; got != StateDir {
		t.Errorf("WORKDIR %q, want %s", got, StateDir)
	}
	hc := final["HEALTHCHECK"]
	for _, flag := range []string{"--interval=30s", "--timeout=10s", "--start-period=5m", "--retries=3"} {
		if !strings.Contains(hc, flag) {
			t.Errorf("HEALTHCHECK %q lacks %s", hc, flag)
		}
	}
	if _, cmd, ok := strings.Cut(hc, "CMD "); !ok || !slices.Equal(append([]string{"CMD"}, jsonArgs(cmd)...), Healthcheck) {
		t.Errorf("HEALTHCHECK %q, want CMD %q", hc, Healthcheck[1:])
	}
}
