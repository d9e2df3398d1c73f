package server

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"simrun/model/disk"
	"simrun/sim"
)

func replicaConfig() ReplicaConfig {
	return ReplicaConfig{
		Cores: 4, Member: disk.DefaultConfig(), Members: 4, Chunk: 512 << 10,
		Redo: true, Binlog: true, PreserveCommitOrder: true,
		RedoPerRow: 450, RedoPerTrx: 250, CommitCPU: 10 * time.Microsecond,
	}
}

// An unordered commit is acknowledged only once its redo is durable; with
// the redo log disabled it is acknowledged when the commit's CPU is done.
func TestReplicaSessionCommit(t *testing.T) {
	for _, tc := range []struct {
		name string
		redo bool
	}{{"redo", true}, {"redo-off", false}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := replicaConfig()
			cfg.Redo, cfg.Binlog, cfg.PreserveCommitOrder = tc.redo, false, false
			env := sim.New(1)
			r, err := NewReplica(env, cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			s := r.NewSession()
			var executedAt, doneAt sim.Time
			s.Execute(100*time.Microsecond, 10, func(any) {
				executedAt = env.Now()
				s.Commit(func(any) { doneAt = env.Now() }, nil)
			}, nil)
			env.Run()
			if executedAt != sim.At(100*time.Microsecond) {
				t.Errorf("executed at %v, want 100us (one core free)", executedAt)
			}
			cpuDone := executedAt + sim.At(cfg.CommitCPU)
			if !tc.redo {
				if doneAt != cpuDone {
					t.Errorf("redo off: acknowledged at %v, want %v", doneAt, cpuDone)
				}
				return
			}
			if doneAt <= cpuDone {
				t.Errorf("acknowledged at %v, before a redo flush could end (commit CPU done at %v)", doneAt, cpuDone)
			}
			if got, want := r.Redo().LSN(), cfg.RedoPerTrx+10*cfg.RedoPerRow; got != want {
				t.Errorf("redo LSN %d, want %d", got, want)
			}
			if r.Redo().Flushes != 1 || r.Redo().Waiters != 1 {
				t.Errorf("redo: %d flushes, %d waiters; want 1, 1", r.Redo().Flushes, r.Redo().Waiters)
			}
		})
	}
}

// CommitInOrder commits every transaction once, in sequence order, with
// and without a binlog.
func TestReplicaCommitInOrder(t *testing.T) {
	for _, binlog := range []bool{true, false} {
		cfg := replicaConfig()
		cfg.Binlog = binlog
		env := sim.New(1)
		var got []int64
		r, err := NewReplica(env, cfg, func(seq int64) { got = append(got, seq) })
		if err != nil {
			t.Fatal(err)
		}
		const n = 50
		ss := make([]*ReplicaSession, n)
		next := int64(1)
		var executed [n + 1]bool
		for i := range ss {
			ss[i] = r.NewSession()
			seq := int64(i + 1)
			// Later transactions execute faster: they wait for their turn.
			ss[i].Execute(time.Duration(n-i)*time.Microsecond, 5, func(any) {
				executed[seq] = true
				for next <= n && executed[next] {
					r.CommitInOrder(next, 1000)
					next++
				}
			}, nil)
		}
		env.Run()
		want := make([]int64, n)
		for i := range want {
			want[i] = int64(i + 1)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("binlog=%v: commit order (-want +got):\n%s", binlog, d)
		}
		o := r.Ordered()
		if o.GroupTrx != n || (binlog && o.SyncTrx != n) || (!binlog && o.Syncs != 0) {
			t.Errorf("binlog=%v: %d trx in flush groups, %d syncs of %d trx", binlog, o.GroupTrx, o.Syncs, o.SyncTrx)
		}
	}
}

func TestReplicaConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*ReplicaConfig)
		want string
	}{
		{"ok", func(*ReplicaConfig) {}, ""},
		{"cores", func(c *ReplicaConfig) { c.Cores = 0 }, "cores"},
		{"binlog-unordered", func(c *ReplicaConfig) { c.PreserveCommitOrder = false }, "binlog"},
		{"redo", func(c *ReplicaConfig) { c.RedoPerRow = -1 }, "redo"},
		{"members", func(c *ReplicaConfig) { c.Members = 0 }, "members"},
	} {
		cfg := replicaConfig()
		tc.edit(&cfg)
		_, err := NewReplica(sim.New(1), cfg, func(int64) {})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want one naming %q", tc.name, err, tc.want)
		}
	}
}
