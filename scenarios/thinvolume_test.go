package scenarios

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestThinVolumeFiles holds the two 54 MB/s files of the binlog study to
// what they claim: the caps-only file changes only the volume's caps (and
// its name) from the 120 MB/s file, as the study says its run did; the
// hypothesis file changes only the redo size from the caps-only file, the
// one assumption its header states.
func TestThinVolumeFiles(t *testing.T) {
	base := mustLoad(t, "binlog/innodb-vs-file-120mbs")
	caps := mustLoad(t, "binlog/innodb-vs-file-54mbs")
	hyp := mustLoad(t, "binlog/innodb-vs-file-54mbs-hypothesis-redo96m")
	if len(caps.Cases) != len(base.Cases) || len(hyp.Cases) != len(base.Cases) {
		t.Fatalf("cases: %d, %d, %d", len(base.Cases), len(caps.Cases), len(hyp.Cases))
	}
	for i, b := range base.Cases {
		c, h := caps.Cases[i], hyp.Cases[i]
		want := b.Config
		want.Volume.Name, want.Volume.IOPSMax, want.Volume.BandwidthMax = c.Volume.Name, c.Volume.IOPSMax, c.Volume.BandwidthMax
		if d := cmp.Diff(want, c.Config); d != "" {
			t.Errorf("%s: the caps-only file changes more than the caps (-120 MB/s with its caps +54 MB/s):\n%s", b.Name, d)
		}
		if c.Volume.IOPSMax != 6750 || c.Volume.BandwidthMax == b.Volume.BandwidthMax {
			t.Errorf("%s: caps %v IOPS, %v; want 6,750 and not the 120 MB/s file's", b.Name, c.Volume.IOPSMax, c.Volume.BandwidthMax)
		}
		want = c.Config
		want.Engine.Redo.LogFileSize = h.Engine.Redo.LogFileSize
		if d := cmp.Diff(want, h.Config); d != "" {
			t.Errorf("%s: the hypothesis changes more than the redo size (-caps-only +hypothesis):\n%s", b.Name, d)
		}
		if h.Engine.Redo.LogFileSize == c.Engine.Redo.LogFileSize {
			t.Errorf("%s: the hypothesis keeps the redo size %v", b.Name, h.Engine.Redo.LogFileSize)
		}
	}
}
