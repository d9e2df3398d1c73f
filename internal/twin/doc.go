// Package twin is simrun's analytical twin: mean-value analysis (MVA) of a
// closed queueing network, the textbook estimate a capacity planner would
// make by hand, set beside a simulated result so that a large gap is seen.
//
// A closed network has N customers (client threads) that cycle through K
// stations and a think time Z. Station k has a service demand D_k per
// customer cycle (seconds of service per transaction) and m_k identical
// servers. Exact MVA (Reiser and Lavenberg 1980) computes, for n = 1..N,
//
//	R_k(n) = D_k · (1 + Q_k(n-1))     queueing station
//	X(n)   = n / (Z + Σ_k R_k(n))      throughput
//	Q_k(n) = X(n) · R_k(n)             Little's law
//
// A multi-server station (a machine's m cores) is taken by Seidmann's
// approximation (Seidmann, Schweitzer and Shalev-Oren 1987): a queueing
// station with demand D/m in series with a delay of D·(m-1)/m. A log
// device that syncs one group of transactions at a time is a queueing
// station whose demand per transaction is its write + flush time divided by
// the group size: batching is what the twin takes from the simulation, not
// what it predicts.
package twin
