/* so2.c: SO(2) block rotations and angle reduction (so2.h). */
#include "so2.h"

#include <math.h>

double rl_angle_reduce(double phi)
{
    double r = remainder(phi, 2.0 * M_PI); /* in [-pi, pi] */
    return r <= -M_PI ? r + 2.0 * M_PI : r;
}

void rl_so2_rotate(int d, const double *phi, int sign, double *X, int nvec)
{
    const int h = d / 2;
    for (int b = 0; b < h; b++) {
        double s, c;
        sincos(sign * phi[b], &s, &c);
        for (int v = 0; v < nvec; v++) {
            double *x = X + (long)v * d;
            double x0 = x[b], x1 = x[b + h];
            x[b] = c * x0 - s * x1;
            x[b + h] = s * x0 + c * x1;
        }
    }
}
