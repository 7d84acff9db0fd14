#pragma once

// CCLAB_HD marks a function the CPU and the GPU both run (the element arithmetic, the verifiable
// data formula), so host and device share one definition. Outside nvcc it marks nothing.

#ifdef __CUDACC__
#define CCLAB_HD __host__ __device__
#else
#define CCLAB_HD
#endif
