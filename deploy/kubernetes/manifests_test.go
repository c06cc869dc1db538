// Package kubernetes holds encbench's Kubernetes manifests (load
// generators as Indexed Jobs) and the test that keeps them in step with
// encbench's flags.
package kubernetes

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/encbench/encbench/internal/cli"
	"github.com/encbench/encbench/internal/suite"
)

// manifests decodes every document of every YAML file here with the
// Kubernetes API types, strictly: an unknown or misspelt field fails.
func manifests(t *testing.T) (jobs []batchv1.Job, maps map[string]corev1.ConfigMap, secrets map[string]corev1.Secret) {
	t.Helper()
	maps, secrets = map[string]corev1.ConfigMap{}, map[string]corev1.Secret{}
	files, _ := filepath.Glob("*.yaml")
	if len(files) == 0 {
		t.Fatal("no manifests")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range bytes.Split(data, []byte("\n---\n")) {
			var meta metav1.TypeMeta
			if err := yaml.Unmarshal(doc, &meta); err != nil {
				t.Fatalf("%s document %d: %v", f, i+1, err)
			}
			var err error
			switch meta.Kind {
			case "Job":
				var j batchv1.Job
				err = yaml.UnmarshalStrict(doc, &j)
				jobs = append(jobs, j)
			case "ConfigMap":
				var c corev1.ConfigMap
				err = yaml.UnmarshalStrict(doc, &c)
				maps[c.Name] = c
			case "Secret":
				var s corev1.Secret
				err = yaml.UnmarshalStrict(doc, &s)
				secrets[s.Name] = s
			case "PersistentVolumeClaim":
				err = yaml.UnmarshalStrict(doc, &corev1.PersistentVolumeClaim{})
			default:
				t.Fatalf("%s document %d: unexpected kind %q", f, i+1, meta.Kind)
			}
			if err != nil {
				t.Fatalf("%s document %d (%s): %v", f, i+1, meta.Kind, err)
			}
		}
	}
	return jobs, maps, secrets
}

var varRef = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// environment is what a container's $(VAR) references expand to, as the
// kubelet would: its env and envFrom, with completion index 0.
func environment(t *testing.T, c corev1.Container, maps map[string]corev1.ConfigMap, secrets map[string]corev1.Secret) map[string]string {
	t.Helper()
	env := map[string]string{}
	for _, from := range c.EnvFrom {
		cm, ok := maps[from.ConfigMapRef.Name]
		if !ok {
			t.Fatalf("container %s: no ConfigMap %s", c.Name, from.ConfigMapRef.Name)
		}
		for k, v := range cm.Data {
			env[k] = v
		}
	}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom == nil:
			env[e.Name] = e.Value
		case e.ValueFrom.SecretKeyRef != nil:
			v, ok := secrets[e.ValueFrom.SecretKeyRef.Name].StringData[e.ValueFrom.SecretKeyRef.Key]
			if !ok {
				t.Fatalf("container %s: no secret key %s/%s", c.Name, e.ValueFrom.SecretKeyRef.Name, e.ValueFrom.SecretKeyRef.Key)
			}
			env[e.Name] = v
		case e.ValueFrom.FieldRef != nil && strings.Contains(e.ValueFrom.FieldRef.FieldPath, "job-completion-index"):
			env[e.Name] = "0"
		}
	}
	return env
}

// Every container's command line, expanded, is one encbench accepts: the
// manifests cannot drift from the flags.
func TestManifestsMatchTheFlags(t *testing.T) {
	jobs, maps, secrets := manifests(t)
	checked := 0
	for _, j := range jobs {
		spec := j.Spec.Template.Spec
		for _, c := range append(spec.InitContainers, spec.Containers...) {
			env := environment(t, c, maps, secrets)
			var args []string
			for _, a := range c.Args {
				args = append(args, varRef.ReplaceAllStringFunc(a, func(ref string) string {
					name := varRef.FindStringSubmatch(ref)[1]
					v, ok := env[name]
					if !ok {
						t.Errorf("job %s container %s: $(%s) is not in its environment", j.Name, c.Name, name)
					}
					return v
				}))
			}
			for _, sec := range secrets {
				for k, v := range sec.StringData {
					if strings.Contains(strings.Join(args, " "), v) {
						t.Errorf("job %s container %s has secret %s/%s on its command line: pass it by environment (ENCBENCH_DSN)", j.Name, c.Name, sec.Name, k)
					}
				}
			}
			if len(c.Command) > 0 {
				t.Errorf("job %s container %s overrides the entrypoint: give encbench's arguments only", j.Name, c.Name)
			}
			if err := cli.CheckArgs(args); err != nil {
				t.Errorf("job %s container %s: encbench %s: %v", j.Name, c.Name, strings.Join(args, " "), err)
			}
			checked++
		}
	}
	if checked < 6 {
		t.Errorf("checked %d containers", checked)
	}
}

// Indexed Jobs have one pod per generator, started together, not retried;
// the merge names every generator's directory.
func TestIndexedJobsMatchTheGenerators(t *testing.T) {
	jobs, maps, _ := manifests(t)
	n, err := strconv.Atoi(maps["encbench-run"].Data["GENERATORS"])
	if err != nil {
		t.Fatal(err)
	}
	indexed := 0
	for _, j := range jobs {
		s := j.Spec
		if s.BackoffLimit == nil || *s.BackoffLimit != 0 {
			t.Errorf("job %s may retry pods: a retried generator misses the common start", j.Name)
		}
		if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
			continue
		}
		indexed++
		if s.Completions == nil || s.Parallelism == nil || int(*s.Completions) != n || int(*s.Parallelism) != n {
			t.Errorf("job %s: completions and parallelism must both be GENERATORS (%d)", j.Name, n)
		}
	}
	if indexed != 2 {
		t.Errorf("%d indexed jobs, want the run's and the suite's", indexed)
	}
	for _, j := range jobs {
		if j.Name != "encbench-suite-merge" {
			continue
		}
		args := strings.Join(j.Spec.Template.Spec.InitContainers[0].Args, " ")
		for i := range n {
			if !strings.Contains(args, "/results/suite/generator-"+strconv.Itoa(i)+" ") {
				t.Errorf("the suite merge does not read generator %d: %s", i, args)
			}
		}
	}
}

// The suite the suite Job runs is a valid suite file.
func TestSuiteConfigMapParses(t *testing.T) {
	_, maps, _ := manifests(t)
	text := maps["encbench-suite"].Data["suite.yaml"]
	t.Setenv("DB_PASSWORD", "x")
	s, err := suite.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := suite.Expand(*s, suite.NoOverrides(), nil); err != nil {
		t.Fatal(err)
	}
	for _, tg := range s.Targets {
		if tg.DSN == "" {
			t.Errorf("target %s is a sandbox: generators on Kubernetes need a dsn", tg.Name)
		}
	}
}
