// mgpu/algorithms/spmv.hpp
//
// Sparse matrix times dense vector, y = A x, for A in compressed sparse row form (CSR): a
// segmented reduction by heads whose segments are the rows (the row offsets are the heads) and
// whose values are the products A[k] * x[column[k]], computed as each tile loads them. The
// load-balancing partition gives every tile the same number of non-zeros and rows together, so
// a row of a million non-zeros and a million empty rows cost what their sizes say, nothing more.
//
// spmv_preprocess (or an spmv_plan constructed from the matrix) runs the partition once; spmv on
// the plan then runs only the reduction, for products with the same sparsity pattern.
#pragma once

#include "../core/buffer.hpp"
#include "../core/checks.hpp"
#include "../core/cta_launch.hpp"
#include "../core/iterators.hpp"
#include "../core/operators.hpp"
#include "../platform/error.hpp"
#include "load_balance.hpp"
#include "preconditions.hpp"
#include "segmented_reduce.hpp"

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace mgpu {

// A view of a sparse matrix of num_rows x num_columns with nnz stored entries, in CSR form: row r
// holds the entries k in [row_offsets[r], row_offsets[r + 1]), entry k being values[k] in column
// column_indices[k]. row_offsets has num_rows + 1 entries, sorted, the first usually 0 and the
// last nnz; values and column_indices have nnz. The view owns nothing: any random-access iterators
// readable on the device.
template <typename ValuesIt, typename ColumnsIt, typename OffsetsIt>
struct csr_matrix {
  ValuesIt values;
  ColumnsIt column_indices;
  OffsetsIt row_offsets;
  std::int64_t num_rows, num_columns, nnz;
};

template <typename ValuesIt, typename ColumnsIt, typename OffsetsIt>
csr_matrix<ValuesIt, ColumnsIt, OffsetsIt> make_csr_matrix(ValuesIt values, ColumnsIt column_indices,
                                                           OffsetsIt row_offsets, std::int64_t num_rows,
                                                           std::int64_t num_columns, std::int64_t nnz) {
  return csr_matrix<ValuesIt, ColumnsIt, OffsetsIt>{values, column_indices, row_offsets, num_rows, num_columns, nnz};
}

// The tile shape of spmv computing in T: segmented reduce's, with the registers a thread may take
// capped where a tile keeps every value, column index and head in flight at once (4-byte T: 6
// CTAs an SM, 85 registers; larger: 4 CTAs, 128 registers), the occupancy the kernel had before.
// On Hopper a 4-byte T takes 13 values a thread and 7 CTAs an SM. Measured on an H200 (2^26
// non-zeros, float; bench/tune.cu spmvshapes, bench/results/2026-11-28_h200_spmv_shapes.txt):
// the banded matrix, whose gathers hit the cache and whose time goes to load latency, ran 1.09x
// faster, the five with random columns within 0.8% either way. (11 x 9 and 11 x 10 ran the
// banded one 1.17x-1.22x faster but the others up to 3.4% slower; 13 x 8 lost 16% on power-law
// rows.) For 8-byte T no shape won on every matrix (the banded one 1.6x faster at 128 x 7 with
// 12 CTAs an SM, the others up to 1.8x slower), so it keeps the old one.
template <typename T>
using spmv_params =
    std::conditional_t<(sizeof(T) <= 4),
                       arch_params<launch_params<128, segreduce_params<T>::vt, 6>, launch_params<128, 13, 7>>,
                       launch_params<128, segreduce_params<T>::vt, 4>>;

namespace detail {

// The value of non-zero k, multiply(values[k], x[column_indices[k]]) converted to T, as a
// segmented reduction's source: the value and the column index are staged, the x entry is
// finished. Measured on the H100 against gathering x right after each column index: float SpMV
// 8-35% faster on random columns, double 1-2%, banded float 36% slower (its gathers hit the cache;
// the staged tile takes 80 registers a thread instead of 56); bench/results/2026-11-25_h100_spmv_float_ab.txt.
template <typename ValuesIt, typename ColumnsIt, typename XIt, typename Multiply>
struct values_from_csr {
  static constexpr bool by_segment = false;
  struct staged_t {
    iterator_value_t<ValuesIt> value;
    iterator_value_t<ColumnsIt> column;
  };
  ValuesIt values;
  ColumnsIt columns;
  XIt x;
  Multiply multiply;
  MGPU_DEVICE staged_t stage(std::int64_t k) const { return staged_t{values[k], columns[k]}; }
  template <typename T>
  MGPU_DEVICE T finish(const staged_t& entry) const {
    return T(multiply(entry.value, x[std::int64_t(entry.column)]));
  }
};

// The checks of the matrix's sizes and arrays (row_offsets: the num_rows entries every product
// reads); in checked mode also its structure, in one pass over row_offsets[0, num_rows] (sorted,
// in [0, nnz], the last equal to nnz) and one over column_indices (in [0, num_columns)).
template <typename ValuesIt, typename ColumnsIt, typename OffsetsIt>
void check_csr(const char* fn, const csr_matrix<ValuesIt, ColumnsIt, OffsetsIt>& a, context& ctx) {
  check_count(fn, "num_rows", a.num_rows);
  check_count(fn, "num_columns", a.num_columns);
  check_count(fn, "nnz", a.nnz);
  checked_sum(fn, "nnz", a.nnz, "num_rows", a.num_rows);
  check_pointer(fn, "values", a.values, a.nnz);
  check_pointer(fn, "column_indices", a.column_indices, a.nnz);
  check_pointer(fn, "row_offsets", a.row_offsets, a.num_rows);
  if (!ctx.checked()) return;
  check_sorted_indices(fn, "row_offsets", a.row_offsets, a.num_rows + 1, 0, a.nnz, "[0, nnz]", false, ctx);
  buffer<std::int64_t> last(1, ctx);
  std::int64_t* l = last.data();
  OffsetsIt offsets = a.row_offsets;
  std::int64_t rows = a.num_rows;
  transform([=] MGPU_LAMBDA(std::int64_t) { l[0] = std::int64_t(offsets[rows]); }, 1, ctx);
  std::int64_t final_offset = last.to_host()[0];
  if (final_offset != a.nnz)
    throw precondition_error(std::string(fn) + ": precondition violated: argument 'row_offsets' ends at " +
                             std::to_string(final_offset) + " (row_offsets[num_rows] must equal nnz, " +
                             std::to_string(a.nnz) + ")");
  check_indices_in_range(fn, "column_indices", a.column_indices, a.nnz, 0, a.num_columns, "[0, num_columns)", ctx);
}

template <typename XIt, typename YIt, typename ValuesIt, typename ColumnsIt, typename OffsetsIt>
void check_vectors(const char* fn, const csr_matrix<ValuesIt, ColumnsIt, OffsetsIt>& a, XIt x, YIt y) {
  check_pointer(fn, "x", x, a.num_columns);
  check_pointer(fn, "y", y, a.num_rows);
  check_disjoint(fn, "y", x, a.num_columns, y, a.num_rows);
  check_disjoint(fn, "y", a.values, a.nnz, y, a.num_rows);
}

// y = A x over the partition `partitions` (null: computed here). Arguments checked.
template <typename P, typename T, typename ValuesIt, typename ColumnsIt, typename OffsetsIt, typename XIt, typename YIt,
          typename Multiply, typename Add>
void spmv_impl(const char* fn, const csr_matrix<ValuesIt, ColumnsIt, OffsetsIt>& a, XIt x, YIt y, T init,
               Multiply multiply, Add add, const std::int64_t* partitions, context& ctx) {
  using products = values_from_csr<ValuesIt, ColumnsIt, XIt, Multiply>;
  segreduce_by_heads<P, T>(fn, products{a.values, a.column_indices, x, multiply}, empty_t(), a.nnz, a.row_offsets,
                           a.num_rows, y, init, add, partitions, ctx);
}

}  // namespace detail

// A matrix's partition for spmv, made once and used by every product with the same sparsity
// pattern: spmv(plan, x, y, ctx) runs the reduction kernel and its fix-up pass (one tile: the
// kernel alone) where spmv(matrix, ...) also runs the partition. The plan refers to the matrix's
// arrays (it copies none): their values may change between products, their structure
// (row_offsets, nnz, num_rows) must not. P is the tile shape, fixed when the plan is made.
// Move-only, as the buffer it holds.
template <typename Matrix, typename P>
class spmv_plan {
 public:
  using matrix_type = Matrix;
  using params = P;

  // Partitions `matrix` (stream-ordered). Throws as spmv does.
  spmv_plan(const Matrix& matrix, context& ctx) : matrix_(matrix) {
    const char* fn = "mgpu::spmv_preprocess";
    detail::check_csr(fn, matrix, ctx);
    // (A matrix of one tile needs none: its products run the tile alone. check_csr checked the sum.)
    if (matrix.num_rows > 0 && matrix.nnz + matrix.num_rows > P::nv)
      partitions_ = load_balance_partitions(matrix.nnz, matrix.row_offsets, matrix.num_rows, P::nv, ctx);
  }

  const Matrix& matrix() const { return matrix_; }
  // load_balance_partitions of the non-zeros and the row offsets with spacing P::nv (empty when the
  // matrix has no rows or fits in one tile).
  const buffer<std::int64_t>& partitions() const { return partitions_; }

 private:
  Matrix matrix_;
  buffer<std::int64_t> partitions_;
};

// y[r] = init add multiply(A[r][k0], x[k0]) add multiply(A[r][k1], x[k1]) add ... over the stored
// entries of row r in order (init for an empty row), computed in T, the type of init, and
// converted to y's type: A x with user arithmetic (a semiring: min and plus, or or and and, ...).
// x has num_columns entries, y num_rows. add must be associative (it need not be commutative);
// multiply(value, x element) may return anything T can be made from. Entries before
// row_offsets[0] belong to no row. y must not overlap x or the matrix's values.
// Stream-ordered; the host never waits (in checked mode it waits for the checks).
// Throws std::invalid_argument for negative sizes or null pointers; in checked mode,
// mgpu::precondition_error if row_offsets is not sorted in [0, nnz] or does not end at nnz, or a
// column index is outside [0, num_columns).
template <typename params = void, typename ValuesIt, typename ColumnsIt, typename OffsetsIt, typename XIt, typename YIt,
          typename T, typename Multiply, typename Add>
void spmv(const csr_matrix<ValuesIt, ColumnsIt, OffsetsIt>& matrix, XIt x, YIt y, T init, Multiply multiply, Add add,
          context& ctx) {
  const char* fn = "mgpu::spmv";
  detail::check_csr(fn, matrix, ctx);
  detail::check_vectors(fn, matrix, x, y);
  detail::spmv_impl<params_or<params, spmv_params<T>>>(fn, matrix, x, y, init, multiply, add, nullptr, ctx);
}

// y = A x: the form above with T the matrix's value type, init T(0), multiplies<> and plus<>.
template <typename params = void, typename ValuesIt, typename ColumnsIt, typename OffsetsIt, typename XIt, typename YIt>
void spmv(const csr_matrix<ValuesIt, ColumnsIt, OffsetsIt>& matrix, XIt x, YIt y, context& ctx) {
  using T = iterator_value_t<ValuesIt>;
  spmv<params>(matrix, x, y, T(0), multiplies<>(), plus<>(), ctx);
}

// The partition of `matrix` for repeated products (spmv_plan). The tile shape (params) is the
// first template argument, as everywhere; its default suits products computed in the matrix's
// value type.
template <typename params = void, typename ValuesIt, typename ColumnsIt, typename OffsetsIt>
spmv_plan<csr_matrix<ValuesIt, ColumnsIt, OffsetsIt>, params_or<params, spmv_params<iterator_value_t<ValuesIt>>>>
spmv_preprocess(const csr_matrix<ValuesIt, ColumnsIt, OffsetsIt>& matrix, context& ctx) {
  return spmv_plan<csr_matrix<ValuesIt, ColumnsIt, OffsetsIt>,
                   params_or<params, spmv_params<iterator_value_t<ValuesIt>>>>(matrix, ctx);
}

// spmv with the plan's matrix and partition: only the reduction runs.
template <typename Matrix, typename P, typename XIt, typename YIt, typename T, typename Multiply, typename Add>
void spmv(const spmv_plan<Matrix, P>& plan, XIt x, YIt y, T init, Multiply multiply, Add add, context& ctx) {
  const char* fn = "mgpu::spmv";
  const Matrix& a = plan.matrix();
  if (ctx.checked()) detail::check_csr(fn, a, ctx);
  detail::check_vectors(fn, a, x, y);
  detail::spmv_impl<P>(fn, a, x, y, init, multiply, add, plan.partitions().data(), ctx);
}
template <typename Matrix, typename P, typename XIt, typename YIt>
void spmv(const spmv_plan<Matrix, P>& plan, XIt x, YIt y, context& ctx) {
  using T = iterator_value_t<decltype(plan.matrix().values)>;
  spmv(plan, x, y, T(0), multiplies<>(), plus<>(), ctx);
}

}  // namespace mgpu
