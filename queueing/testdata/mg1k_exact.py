#!/usr/bin/env python3
"""Exact E(R_K) of PACP's M/G/1/K queue at three operating points.

An independent check of package queueing (docs/models.md §4), by a
different method: exact rational arithmetic (fractions) throughout, the
Gamma shapes chosen integral so that a_k is rational, and the embedded
chain's stationary law found by Gaussian elimination on its full K x K
transition matrix (not by the recursion the Go code uses). Only the time
averages (p_k = P_d,k/(P_d,0 + rho_e), p_K = 1 - 1/(P_d,0 + rho_e),
L = sum_{k=0..K} k p_k, E(R) = L/(Lambda (1 - p_K))) are the spec's.

Standard library only. Run: python3 mg1k_exact.py > mg1k_exact.golden
"""
from fractions import Fraction as F
from math import comb

# name, lambda, mu_l, theta, omega, Lambda, Kmax (all exact)
POINTS = [
    ("exp", F(1, 2), F(1), F(0), F(1), F(1, 5), 5),
    ("shape2", F(1, 10), F(1, 2), F(1), F(10), F(2, 25), 6),
    ("shape3-overload", F(1, 2), F(2), F(0), F(3), F(3, 10), 6),
]


def service(lam, mu_l, theta, omega):
    rho = lam / mu_l
    mu_e = 1 / omega
    e = omega / (1 - rho)
    v = rho / (1 - rho) ** 3 * (theta ** 2 + 1) / mu_e * omega
    return e, v


def arrivals(Lam, shape, scale, n):
    x = Lam * scale
    q = x / (1 + x)
    return [comb(k + shape - 1, k) * q ** k * (1 - q) ** shape for k in range(n)]


def stationary(P):
    """Solve pi P = pi, sum pi = 1 by Gaussian elimination, exactly."""
    n = len(P)
    # equations: sum_i pi_i (P[i][j] - [i==j]) = 0 for j < n-1; sum pi = 1
    A = [[P[i][j] - (1 if i == j else 0) for i in range(n)] + [F(0)] for j in range(n - 1)]
    A.append([F(1)] * n + [F(1)])
    for c in range(n):
        r = next(r for r in range(c, n) if A[r][c] != 0)
        A[c], A[r] = A[r], A[c]
        piv = A[c][c]
        A[c] = [v / piv for v in A[c]]
        for r in range(n):
            if r != c and A[r][c] != 0:
                f = A[r][c]
                A[r] = [a - f * b for a, b in zip(A[r], A[c])]
    return [A[i][n] for i in range(n)]


def response(Lam, a, rho, K):
    if K == 1:
        P = [[F(1)]]
    else:
        P = [[F(0)] * K for _ in range(K)]
        for i in range(K):
            base = max(i - 1, 0)
            for j in range(base, K - 1):
                P[i][j] = a[j - base]
            P[i][K - 1] = 1 - sum(P[i][: K - 1])
    pd = stationary(P)
    p = [pd[k] / (pd[0] + rho) for k in range(K)] + [1 - 1 / (pd[0] + rho)]
    L = sum(k * pk for k, pk in enumerate(p))
    return L / (Lam * (1 - p[K]))


def main():
    for name, lam, mu_l, theta, omega, Lam, kmax in POINTS:
        e, v = service(lam, mu_l, theta, omega)
        shape, scale = e * e / v, v / e
        assert shape.denominator == 1, shape
        a = arrivals(Lam, int(shape), scale, kmax)
        rho = Lam * e
        print(f"# {name}: lambda={lam} mu_l={mu_l} theta={theta} omega={omega} Lambda={Lam}"
              f" E(T)={e} V(T)={v} shape={shape} scale={scale} rho_e={rho}")
        for K in range(1, kmax + 1):
            r = response(Lam, a, rho, K)
            print(f"{name} {K} {float(r):.15g} {r}")


if __name__ == "__main__":
    main()
