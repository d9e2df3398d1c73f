package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The example Kubernetes manifests and Slurm script in docs/examples run
// their shards locally (with the test binary standing in for simrun) and
// their merge equals the unsharded sweep byte for byte.

const examples = "../../docs/examples"

// fakeSimrun puts a "simrun" on PATH that runs this test binary as simrun.
func fakeSimrun(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	script := "#!/bin/sh\nSIMRUN_TEST_AS_MAIN=1 exec " + shellQuote(os.Args[0]) + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "simrun"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// foldedArgs returns the folded block scalar that follows "args:" / "- >"
// in a manifest, joined into one command line.
func foldedArgs(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != "- >" {
			continue
		}
		indent := -1
		var parts []string
		for _, m := range lines[i+1:] {
			n := len(m) - len(strings.TrimLeft(m, " "))
			if strings.TrimSpace(m) == "" || (indent >= 0 && n < indent) {
				break
			}
			if indent < 0 {
				indent = n
			}
			parts = append(parts, strings.TrimSpace(m))
		}
		return strings.Join(parts, " ")
	}
	t.Fatalf("%s: no folded args block", path)
	return ""
}

func shell(t *testing.T, env []string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

func TestExamplesShardAndMerge(t *testing.T) {
	if testing.Short() {
		t.Skip("runs shell scripts")
	}
	for _, sh := range []string{"sh", "bash"} {
		if _, err := exec.LookPath(sh); err != nil {
			t.Skipf("no %s", sh)
		}
	}
	bin := fakeSimrun(t)
	path := "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")
	extra := "EXTRA_FLAGS=--duration 1s"

	// The unsharded sweep the examples describe.
	want, errOut, code := simrun(t, "sweep", "demo/mmc", "--case", "mm4",
		"--set", "workload.demo.servers=4,5,6,8", "--set", "workload.demo.arrival_rate=1k,2k,3k",
		"--duration", "1s", "--format", "json")
	if code != 0 {
		t.Fatalf("whole sweep: %s", errOut)
	}

	t.Run("slurm", func(t *testing.T) {
		dir := t.TempDir()
		for i := 0; i < 4; i++ {
			shell(t, []string{path, extra, "RESULTS=" + dir, "SLURM_ARRAY_TASK_ID=" + string(rune('0'+i)), "SLURM_ARRAY_TASK_COUNT=4", "SLURM_CPUS_PER_TASK=1"},
				"bash", filepath.Join(examples, "sweep-slurm.sh"))
		}
		shell(t, []string{path}, "sh", "-c", "simrun merge "+dir+"/part-*.json -o "+dir+"/sweep.json")
		got, _ := os.ReadFile(filepath.Join(dir, "sweep.json"))
		if !bytes.Equal(got, []byte(want)) {
			t.Errorf("slurm shards merged differ from the whole sweep")
		}
	})

	t.Run("kubernetes", func(t *testing.T) {
		dir := t.TempDir()
		job := strings.ReplaceAll(foldedArgs(t, filepath.Join(examples, "sweep-indexed-job.yaml")), "/results/", dir+"/")
		for i := 0; i < 4; i++ {
			shell(t, []string{path, extra, "SHARDS=4", "JOB_COMPLETION_INDEX=" + string(rune('0'+i))}, "sh", "-c", job)
		}
		merge := strings.ReplaceAll(foldedArgs(t, filepath.Join(examples, "sweep-merge-job.yaml")), "/results/", dir+"/")
		shell(t, []string{path}, "sh", "-c", merge)
		got, _ := os.ReadFile(filepath.Join(dir, "sweep.json"))
		if !bytes.Equal(got, []byte(want)) {
			t.Errorf("indexed-job shards merged differ from the whole sweep")
		}
	})
}
