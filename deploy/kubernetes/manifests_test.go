// Package kubernetes holds the tests of the manifests in deploy/kubernetes:
// each decoded strictly with the Kubernetes API types (an unknown or
// misspelt field fails), the alert rules parsed by Prometheus's own rule
// file parser, and the settings that must agree across files checked.
package kubernetes

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/tickrules/tickrules/deploy/image"
)

// object is one decoded manifest and where it came from.
type object struct {
	file string
	obj  any
}

// newObject returns the API type of a manifest's apiVersion and kind.
func newObject(apiVersion, kind string) (any, bool) {
	switch apiVersion + " " + kind {
	case "v1 Namespace":
		return &corev1.Namespace{}, true
	case "v1 Service":
		return &corev1.Service{}, true
	case "v1 ConfigMap":
		return &corev1.ConfigMap{}, true
	case "v1 PersistentVolumeClaim":
		return &corev1.PersistentVolumeClaim{}, true
	case "apps/v1 StatefulSet":
		return &appsv1.StatefulSet{}, true
	case "batch/v1 Job":
		return &batchv1.Job{}, true
	case "monitoring.coreos.com/v1 ServiceMonitor":
		return &monitoringv1.ServiceMonitor{}, true
	case "monitoring.coreos.com/v1 PrometheusRule":
		return &monitoringv1.PrometheusRule{}, true
	}
	return nil, false
}

// decodeAll decodes every document of every YAML file in this directory.
func decodeAll(t *testing.T) []object {
	t.Helper()
	files, err := filepath.Glob("*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	var out []object
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r := k8syaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
		for n := 1; ; n++ {
			doc, err := r.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: document %d: %v", f, n, err)
			}
			var tm metav1.TypeMeta
			if err := yaml.Unmarshal(doc, &tm); err != nil {
				t.Fatalf("%s: document %d: %v", f, n, err)
			}
			if tm.APIVersion == "" && tm.Kind == "" {
				continue // only comments
			}
			obj, ok := newObject(tm.APIVersion, tm.Kind)
			if !ok {
				t.Errorf("%s: document %d: %s %s is not a kind this test knows; add its type to newObject", f, n, tm.APIVersion, tm.Kind)
				continue
			}
			if err := decodeStrict(doc, obj); err != nil {
				t.Errorf("%s: document %d (%s): %v", f, n, tm.Kind, err)
				continue
			}
			out = append(out, object{file: f, obj: obj})
		}
	}
	return out
}

// decodeStrict decodes a YAML manifest into obj as the API server's
// strict field validation does: field names match case-sensitively, and an
// unknown or duplicate field is an error.
func decodeStrict(doc []byte, obj any) error {
	j, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return err
	}
	strict, err := kjson.UnmarshalStrict(j, obj)
	if err != nil {
		return err
	}
	return errors.Join(strict...)
}

// find returns the decoded objects of type T.
func find[T any](objs []object) []T {
	var out []T
	for _, o := range objs {
		if v, ok := o.obj.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

func TestManifestsDecodeStrictly(t *testing.T) {
	objs := decodeAll(t)
	for _, o := range objs {
		m, err := metaOf(o.obj)
		if err != nil {
			t.Fatal(err)
		}
		if m.Name == "" {
			t.Errorf("%s: an object without a name", o.file)
		}
		if _, ns := o.obj.(*corev1.Namespace); !ns && m.Namespace != "tickrules" {
			t.Errorf("%s: %s is in namespace %q, want tickrules", o.file, m.Name, m.Namespace)
		}
	}
	// A misspelt, unknown or repeated field fails: the decoding above is strict.
	for _, bad := range []string{
		"apiVersion: v1\nkind: Service\nmetadata: {name: x}\nspec: {clusterIp: None}\n",
		"apiVersion: v1\nkind: Service\nmetadata: {name: x}\nspec: {replicas: 1}\n",
		"apiVersion: v1\nkind: Service\nmetadata: {name: x, name: y}\n",
	} {
		if err := decodeStrict([]byte(bad), &corev1.Service{}); err == nil {
			t.Errorf("decoded without error: %q", bad)
		}
	}
}

// metaOf returns an object's metadata.
func metaOf(obj any) (metav1.ObjectMeta, error) {
	b, err := yaml.Marshal(obj)
	if err != nil {
		return metav1.ObjectMeta{}, err
	}
	var v struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	err = yaml.Unmarshal(b, &v)
	return v.Metadata, err
}

// TestAccountStatefulSet checks what makes one engine per account safe:
// one replica, state on a claim, credentials from a Secret file, probes on
// the health endpoints, the image's own command, a read-only root.
func TestAccountStatefulSet(t *testing.T) {
	objs := decodeAll(t)
	sets := find[*appsv1.StatefulSet](objs)
	if len(sets) == 0 {
		t.Fatal("no StatefulSet")
	}
	services := find[*corev1.Service](objs)
	configMaps := find[*corev1.ConfigMap](objs)
	for _, s := range sets {
		t.Run(s.Name, func(t *testing.T) {
			if s.Spec.Replicas == nil || *s.Spec.Replicas != 1 {
				t.Errorf("replicas %v, want exactly 1: one engine per account", s.Spec.Replicas)
			}
			pod := s.Spec.Template.Spec
			if len(pod.Containers) != 1 {
				t.Fatalf("%d containers, want 1", len(pod.Containers))
			}
			c := pod.Containers[0]
			if !slices.Equal(c.Args, image.Cmd) {
				t.Errorf("args %q, want the image's command %q", c.Args, image.Cmd)
			}
			mounts := map[string]corev1.VolumeMount{}
			for _, m := range c.VolumeMounts {
				mounts[m.Name] = m
			}
			if m, ok := mounts["state"]; !ok || m.MountPath != image.StateDir {
				t.Errorf("the state volume is mounted at %q, want %s", m.MountPath, image.StateDir)
			}
			if len(s.Spec.VolumeClaimTemplates) != 1 || s.Spec.VolumeClaimTemplates[0].Name != "state" {
				t.Errorf("volume claim templates %v, want one named state", s.Spec.VolumeClaimTemplates)
			}
			volumes := map[string]corev1.Volume{}
			for _, v := range pod.Volumes {
				volumes[v.Name] = v
			}
			cred, ok := volumes["credentials"]
			if !ok || cred.Secret == nil {
				t.Fatal("no credentials volume from a Secret")
			}
			var credFile string
			for _, e := range c.Env {
				if e.Name == "TICKRULES_CREDENTIALS_FILE" {
					credFile = e.Value
				}
				if strings.HasPrefix(e.Name, "TICKRULES_API_") {
					t.Errorf("credential %s in the environment: it comes from the Secret's file", e.Name)
				}
			}
			if m := mounts["credentials"]; !m.ReadOnly || filepath.Dir(credFile) != m.MountPath {
				t.Errorf("TICKRULES_CREDENTIALS_FILE %q is not in the read-only credentials mount %q", credFile, m.MountPath)
			}
			// The engine accepts a Secret's file (root's, group-readable)
			// only when the group is its own and no one else can read it.
			sc := pod.SecurityContext
			if sc == nil || sc.RunAsGroup == nil || sc.FSGroup == nil || *sc.RunAsGroup != *sc.FSGroup || *sc.RunAsGroup == 0 {
				t.Errorf("pod security context %+v: runAsGroup must equal fsGroup (not 0)", sc)
			}
			if m := cred.Secret.DefaultMode; m == nil || *m&0o037 != 0 {
				t.Errorf("the Secret's mode %v lets others read or the group write", m)
			}
			if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser != image.UID {
				t.Errorf("pod security context %+v: want non-root, user %d", sc, image.UID)
			}
			csc := c.SecurityContext
			if csc == nil || csc.ReadOnlyRootFilesystem == nil || !*csc.ReadOnlyRootFilesystem ||
				csc.AllowPrivilegeEscalation == nil || *csc.AllowPrivilegeEscalation {
				t.Errorf("container security context %+v: want a read-only root and no privilege escalation", csc)
			}
			for name, p := range map[string]*corev1.Probe{"liveness": c.LivenessProbe, "readiness": c.ReadinessProbe, "startup": c.StartupProbe} {
				want := "/healthz"
				if name == "readiness" {
					want = "/readyz"
				}
				if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != want || p.HTTPGet.Port.String() != "http" {
					t.Errorf("%s probe %+v, want GET %s on the http port", name, p, want)
				}
			}
			if len(c.Ports) != 1 || c.Ports[0].Name != "http" || c.Ports[0].ContainerPort != 9477 {
				t.Errorf("ports %+v, want http 9477", c.Ports)
			}
			// The rules come from a ConfigMap mounted as a directory: a
			// subPath mount would never see an update.
			rules, ok := volumes["rules"]
			if !ok || rules.ConfigMap == nil {
				t.Fatal("no rules volume from a ConfigMap")
			}
			if m := mounts["rules"]; m.MountPath != image.RulesDir || m.SubPath != "" || !m.ReadOnly {
				t.Errorf("rules mount %+v, want %s, read-only, no subPath (it would not be updated)", m, image.RulesDir)
			}
			if !slices.ContainsFunc(configMaps, func(cm *corev1.ConfigMap) bool { return cm.Name == rules.ConfigMap.Name }) {
				t.Errorf("no ConfigMap %s beside the StatefulSet", rules.ConfigMap.Name)
			}
			if !slices.ContainsFunc(services, func(svc *corev1.Service) bool {
				return svc.Name == s.Spec.ServiceName && svc.Spec.ClusterIP == corev1.ClusterIPNone && selects(svc.Spec.Selector, s.Spec.Template.Labels)
			}) {
				t.Errorf("no headless Service %s selecting the pods", s.Spec.ServiceName)
			}
		})
	}
}

// selects reports whether selector matches labels.
func selects(selector, labels map[string]string) bool {
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return len(selector) > 0
}

// TestRulesConfigMap: the example rules in the ConfigMap are the project's
// example files, byte for byte (they are checked and tested there).
func TestRulesConfigMap(t *testing.T) {
	for _, cm := range find[*corev1.ConfigMap](decodeAll(t)) {
		if !strings.HasSuffix(cm.Name, "-rules") {
			continue
		}
		for name, body := range cm.Data {
			want, err := os.ReadFile(filepath.Join("..", "..", "examples", "rules", name))
			if err != nil {
				t.Errorf("%s: %s is not an example rule file: %v", cm.Name, name, err)
				continue
			}
			if body != string(want) {
				t.Errorf("%s: %s differs from examples/rules/%s", cm.Name, name, name)
			}
		}
	}
}

// TestServiceMonitor: the ServiceMonitor selects the accounts' Services
// and scrapes their http port.
func TestServiceMonitor(t *testing.T) {
	objs := decodeAll(t)
	mons := find[*monitoringv1.ServiceMonitor](objs)
	if len(mons) != 1 {
		t.Fatalf("%d ServiceMonitors, want 1", len(mons))
	}
	m := mons[0]
	for _, svc := range find[*corev1.Service](objs) {
		if !selects(m.Spec.Selector.MatchLabels, svc.Labels) {
			t.Errorf("the ServiceMonitor does not select Service %s", svc.Name)
		}
		if len(svc.Spec.Ports) == 0 || len(m.Spec.Endpoints) == 0 || svc.Spec.Ports[0].Name != m.Spec.Endpoints[0].Port {
			t.Errorf("Service %s has no port named as the ServiceMonitor's endpoint", svc.Name)
		}
	}
	if len(m.Spec.Endpoints) != 1 || m.Spec.Endpoints[0].Path != "/metrics" {
		t.Errorf("endpoints %+v, want /metrics", m.Spec.Endpoints)
	}
}

// TestAlertRules parses the PrometheusRule's groups with Prometheus's own
// rule-file parser (which checks every expression and template) and checks
// that each alert the issue asks for is there. metrics/'s
// TestAlertRulesNameExportedMetrics checks the metric names.
func TestAlertRules(t *testing.T) {
	rules := find[*monitoringv1.PrometheusRule](decodeAll(t))
	if len(rules) != 1 {
		t.Fatalf("%d PrometheusRules, want 1", len(rules))
	}
	groups, err := yaml.Marshal(rules[0].Spec)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	parsed, errs := rulefmt.Parse(groups, false, model.UTF8Validation, parser.NewParser(parser.Options{}), log)
	for _, err := range errs {
		t.Errorf("rule file: %v", err)
	}
	if parsed == nil {
		t.FailNow()
	}
	var alerts []string
	for _, g := range parsed.Groups {
		for _, r := range g.Rules {
			alerts = append(alerts, r.Alert)
			if r.Labels["severity"] == "" || r.Annotations["summary"] == "" || r.Annotations["description"] == "" {
				t.Errorf("alert %s lacks a severity, summary or description", r.Alert)
			}
		}
	}
	for _, want := range []string{"TickrulesEngineDown", "TickrulesTickLoopStalled", "TickrulesKillSwitchOn",
		"TickrulesPollsFailing", "TickrulesOrdersFailing", "TickrulesClockSkew"} {
		if !slices.Contains(alerts, want) {
			t.Errorf("no alert %s (have %q)", want, alerts)
		}
	}
	// The parser is not lenient: a broken expression fails.
	broken := []byte("groups:\n- name: x\n  rules:\n  - alert: X\n    expr: rate(tickrules_poll_errors_total[5m] > 0\n")
	if _, errs := rulefmt.Parse(broken, false, model.UTF8Validation, parser.NewParser(parser.Options{}), log); len(errs) == 0 {
		t.Error("a broken expression parsed without error")
	}
}

// argAfter returns the argument after flag in args ("" when absent).
func argAfter(args []string, flag string) string {
	i := slices.Index(args, flag)
	if i < 0 || i+1 >= len(args) {
		return ""
	}
	return args[i+1]
}

// TestSweepJobs: the Indexed Job's pod K runs shard K/N with N its
// completions, each shard writes its own folder on the shared volume, and
// the merge Job reads exactly the N folders.
func TestSweepJobs(t *testing.T) {
	objs := decodeAll(t)
	var sweep, merge *batchv1.Job
	for _, j := range find[*batchv1.Job](objs) {
		switch {
		case j.Spec.CompletionMode != nil && *j.Spec.CompletionMode == batchv1.IndexedCompletion:
			sweep = j
		case len(j.Spec.Template.Spec.Containers) == 1 && slices.Equal(j.Spec.Template.Spec.Containers[0].Args[:2], []string{"backtest", "merge"}):
			merge = j
		}
	}
	if sweep == nil || merge == nil {
		t.Fatalf("want an Indexed Job and a merge Job (sweep %v, merge %v)", sweep != nil, merge != nil)
	}
	c := sweep.Spec.Template.Spec.Containers[0]
	if c.Args[0] != "backtest" || argAfter(c.Args, "--vary") == "" {
		t.Errorf("the sweep runs %q, want engine backtest --vary ...", c.Args)
	}
	if !slices.ContainsFunc(c.Env, func(e corev1.EnvVar) bool {
		return e.Name == "JOB_COMPLETION_INDEX" && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil &&
			e.ValueFrom.FieldRef.FieldPath == "metadata.annotations['batch.kubernetes.io/job-completion-index']"
	}) {
		t.Error("JOB_COMPLETION_INDEX is not taken from the completion index annotation")
	}
	k, n, _ := strings.Cut(argAfter(c.Args, "--shard"), "/")
	shards, err := strconv.Atoi(n)
	if k != "$(JOB_COMPLETION_INDEX)" || err != nil || sweep.Spec.Completions == nil || int(*sweep.Spec.Completions) != shards {
		t.Errorf("--shard %s/%s with %v completions: want $(JOB_COMPLETION_INDEX)/N, N the completions", k, n, sweep.Spec.Completions)
	}
	out := argAfter(c.Args, "--out")
	if !strings.Contains(out, "$(JOB_COMPLETION_INDEX)") {
		t.Errorf("--out %s: each shard needs a folder of its own", out)
	}
	var want []string
	for i := range shards {
		want = append(want, strings.ReplaceAll(out, "$(JOB_COMPLETION_INDEX)", strconv.Itoa(i)))
	}
	margs := merge.Spec.Template.Spec.Containers[0].Args
	if got := margs[4:]; argAfter(margs, "--out") == "" || !slices.Equal(got, want) {
		t.Errorf("the merge reads %q, want the shards' folders %q", got, want)
	}
	claims := find[*corev1.PersistentVolumeClaim](objs)
	for _, j := range []*batchv1.Job{sweep, merge} {
		vols := j.Spec.Template.Spec.Volumes
		if len(vols) != 1 || vols[0].PersistentVolumeClaim == nil ||
			!slices.ContainsFunc(claims, func(c *corev1.PersistentVolumeClaim) bool {
				return c.Name == vols[0].PersistentVolumeClaim.ClaimName && slices.Contains(c.Spec.AccessModes, corev1.ReadWriteMany)
			}) {
			t.Errorf("Job %s does not mount the shared (ReadWriteMany) claim", j.Name)
		}
		if j.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
			t.Errorf("Job %s restarts its pods in place: a failed shard is retried by the Job", j.Name)
		}
	}
}
