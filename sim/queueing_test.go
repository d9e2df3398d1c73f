package sim

import (
	"math"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

// openQueue is an open queueing system built from the kernel's pieces: a
// Poisson arrival process feeding a Station. It measures what the
// analytical checks compare against the formulas.
type openQueue struct {
	env      *Env
	st       *Station
	arrivals *Stream
	service  *Stream
	meanGap  float64 // ns
	svc      Dist
	left     int

	inSystem    int
	areaSystem  float64 // job-ns in system
	lastChange  Time
	sojournSum  float64
	departed    int64
	arrive      func()
	departFn    func(any)
	arrivedAt   []Time // ring of arrival times (FIFO: departures are in order only for c=1)
	arrivedHead int
}

type queueResult struct {
	meanWait    float64 // ns, waiting before service (Wq)
	meanSojourn float64 // ns, W
	lambda      float64 // arrivals per ns
	meanInSys   float64 // L
}

func runOpenQueue(seed uint64, lambdaPerSec float64, servers int, svc Dist, customers int) queueResult {
	e := New(seed)
	q := &openQueue{
		env: e, st: NewStation(e, servers),
		arrivals: e.Stream("arrivals"), service: e.Stream("service"),
		meanGap: 1e9 / lambdaPerSec, svc: svc, left: customers,
	}
	q.departFn = q.depart
	q.arrive = q.onArrive
	e.After(0, q.arrive)
	e.Run()
	st := q.st.Stats()
	el := float64(e.Now())
	return queueResult{
		meanWait:    float64(st.MeanWait),
		meanSojourn: q.sojournSum / float64(q.departed),
		lambda:      float64(st.Arrived) / el,
		meanInSys:   q.areaSystem / el,
	}
}

func (q *openQueue) account() {
	now := q.env.Now()
	q.areaSystem += float64(now-q.lastChange) * float64(q.inSystem)
	q.lastChange = now
}

func (q *openQueue) onArrive() {
	q.account()
	q.inSystem++
	// The arrival time travels with the job as its argument; a Time in an
	// interface would allocate, so use a *Time from a fixed pool.
	at := new(Time) // test code: allocation is fine here
	*at = q.env.Now()
	q.st.Submit(SampleDuration(q.svc, q.service), q.departFn, at)
	q.left--
	if q.left > 0 {
		q.env.After(time.Duration(math.Round(q.arrivals.Exp()*q.meanGap)), q.arrive)
	}
}

func (q *openQueue) depart(a any) {
	q.account()
	q.inSystem--
	q.sojournSum += float64(q.env.Now() - *a.(*Time))
	q.departed++
}

func erlangC(c int, a float64) float64 {
	// Probability an arrival waits in M/M/c with offered load a = lambda/mu.
	sum, term := 0.0, 1.0
	for k := 0; k < c; k++ {
		if k > 0 {
			term *= a / float64(k)
		}
		sum += term
	}
	term *= a / float64(c)
	rho := a / float64(c)
	top := term / (1 - rho)
	return top / (sum + top)
}

func TestQueueingFormulas(t *testing.T) {
	if testing.Short() {
		t.Skip("analytical checks need millions of customers")
	}
	const mean = 1e6 // 1 ms mean service, in ns
	// gonum distributions are sampled by inversion through Quantile.
	expSvc := distuv.Exponential{Rate: 1 / mean}
	tests := []struct {
		reason    string
		lambda    float64 // per second
		servers   int
		svc       Dist
		customers int
		wantWq    float64 // ns
	}{
		// M/M/1: Wq = rho/(mu-lambda)
		{"M/M/1 rho=0.5", 500, 1, expSvc, 2_000_000, 0.5 / (1000 - 500) * 1e9},
		{"M/M/1 rho=0.9", 900, 1, expSvc, 8_000_000, 0.9 / (1000 - 900) * 1e9},
		// M/M/c: Wq = C(c,a)/(c*mu-lambda)
		{"M/M/4 rho=0.8", 3200, 4, expSvc, 4_000_000, erlangC(4, 3.2) / (4000 - 3200) * 1e9},
		// M/D/1: Wq = rho/(2*mu*(1-rho))
		{"M/D/1 rho=0.7", 700, 1, Constant(mean), 2_000_000, 0.7 / (2 * 1000 * 0.3) * 1e9},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			r := runOpenQueue(20261130, tc.lambda, tc.servers, tc.svc, tc.customers)
			if err := math.Abs(r.meanWait-tc.wantWq) / tc.wantWq; err > 0.02 {
				t.Errorf("mean wait %.4gms, formula %.4gms: error %.2f%% > 2%%", r.meanWait/1e6, tc.wantWq/1e6, 100*err)
			} else {
				t.Logf("mean wait %.4gms, formula %.4gms: error %.2f%%", r.meanWait/1e6, tc.wantWq/1e6, 100*err)
			}
			little := r.lambda * r.meanSojourn
			if err := math.Abs(r.meanInSys-little) / little; err > 0.01 {
				t.Errorf("Little's law: L=%.4f, lambda*W=%.4f: error %.3f%% > 1%%", r.meanInSys, little, 100*err)
			}
		})
	}
}
