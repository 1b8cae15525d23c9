#pragma once
// A reference stand-in for the two cuBLAS calls standard attention makes, so the launcher's GEMM
// arguments (transposes, leading dimensions, batch strides) are exercised by the emulated tests
// exactly as written for cuBLAS. It follows the cuBLAS documentation of
// cublasSgemmStridedBatched: column-major storage, for every batch b
//
//   C_b = alpha * op(A_b) * op(B_b) + beta * C_b,  op(A) is m x k, op(B) is k x n, C is m x n,
//   A_b = A + b * strideA (likewise B, C), element (r, c) of a column-major X at X[r + c * ldX],
//   op(X) = X for CUBLAS_OP_N, X^T for CUBLAS_OP_T; C is not read when beta == 0.
//
// Sums are accumulated in double: this is a reference, not a model of cuBLAS's rounding.
#include "cuda_emulation.hpp"

struct CublasEmulatedContext {};
using cublasHandle_t = CublasEmulatedContext*;

enum cublasStatus_t { CUBLAS_STATUS_SUCCESS = 0, CUBLAS_STATUS_INVALID_VALUE = 7 };
enum cublasOperation_t { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 };

inline cublasStatus_t cublasCreate(cublasHandle_t* handle) {
    *handle = new CublasEmulatedContext;
    return CUBLAS_STATUS_SUCCESS;
}

inline cublasStatus_t cublasDestroy(cublasHandle_t handle) {
    delete handle;
    return CUBLAS_STATUS_SUCCESS;
}

inline cublasStatus_t cublasSetStream(cublasHandle_t, cudaStream_t) { return CUBLAS_STATUS_SUCCESS; }

inline cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t, cublasOperation_t transa, cublasOperation_t transb,
                                                int m, int n, int k, const float* alpha, const float* A, int lda,
                                                long long strideA, const float* B, int ldb, long long strideB,
                                                const float* beta, float* C, int ldc, long long strideC,
                                                int batch_count) {
    const int a_rows = transa == CUBLAS_OP_N ? m : k;
    const int b_rows = transb == CUBLAS_OP_N ? k : n;
    if (m < 0 || n < 0 || k < 0 || batch_count < 0 || lda < (a_rows > 1 ? a_rows : 1) ||
        ldb < (b_rows > 1 ? b_rows : 1) || ldc < (m > 1 ? m : 1)) {
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    for (int batch = 0; batch < batch_count; ++batch) {
        const float* a = A + batch * strideA;
        const float* b = B + batch * strideB;
        float* c = C + batch * strideC;
        for (int col = 0; col < n; ++col) {
            for (int row = 0; row < m; ++row) {
                double sum = 0;
                for (int l = 0; l < k; ++l) {
                    const double a_rl = transa == CUBLAS_OP_N ? a[row + static_cast<long long>(l) * lda]
                                                              : a[l + static_cast<long long>(row) * lda];
                    const double b_lc = transb == CUBLAS_OP_N ? b[l + static_cast<long long>(col) * ldb]
                                                              : b[col + static_cast<long long>(l) * ldb];
                    sum += a_rl * b_lc;
                }
                float& out = c[row + static_cast<long long>(col) * ldc];
                out = static_cast<float>(*alpha * sum + (*beta == 0.0f ? 0.0 : *beta * static_cast<double>(out)));
            }
        }
    }
    return CUBLAS_STATUS_SUCCESS;
}
