// examples/demo.cpp
//
// The mgpu demo: each function on a small input, printed ten values to a row in the style of the
// Modern GPU demos. One function per family, called from main(). The same file builds with a
// host compiler (mgpu_demo_sim, the CPU simulator) and with nvcc (mgpu_demo_cuda).
#include <mgpu/mgpu.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

// Prints `count` items ten to a row, each row led by the index of its first item. print_item(i)
// prints item i; sections whose values need more than a printf format can call this directly.
template <typename PrintItem>
void print_rows(std::size_t count, PrintItem print_item) {
  for (std::size_t i = 0; i < count; ++i) {
    if (i % 10 == 0) std::printf(i ? "\n%5zu: " : "%5zu: ", i);
    std::printf(" ");
    print_item(i);
  }
  std::printf("\n");
}

// print_array(values, "%4d"): one printf format per value.
template <typename T>
void print_array(const std::vector<T>& values, const char* format) {
  print_rows(values.size(), [&](std::size_t i) { std::printf(format, values[i]); });
}
template <typename T>
void print_array(const mgpu::buffer<T>& values, const char* format) {
  print_array(values.to_host(), format);
}

// The first `count` values of a device array (waits for the stream).
template <typename T>
std::vector<T> first_values(const mgpu::buffer<T>& values, std::int64_t count) {
  std::vector<T> host = values.to_host();
  host.resize(std::size_t(count));
  return host;
}

// One value of device memory (waits for the stream).
template <typename T>
T read_one(const mgpu::buffer<T>& value) {
  return value.to_host()[0];
}

// `count` random integers in [0, range). mt19937's raw output is fixed by the standard (its
// distributions are not), so every compiler prints the same demo.
std::vector<int> random_ints(int count, int range, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<int> values(count);
  for (int& v : values) v = int(rng() % unsigned(range));
  return values;
}

// The letters a, b, c, ... : values that name their position in the input.
std::vector<char> letters(int count) {
  std::vector<char> values(std::size_t(count), 'a');
  for (int i = 0; i < count; ++i) values[std::size_t(i)] = char('a' + i);
  return values;
}

// ---- reduce and scan ---------------------------------------------------------------------------

void demo_reduce_scan(mgpu::context& ctx) {
  std::printf("\n\nREDUCE AND SCAN DEMONSTRATION:\n\n");

  const int n = 100;
  mgpu::buffer<int> data(random_ints(n, 10, 2013), ctx);
  std::printf("Input array:\n");
  print_array(data, "%4d");

  // Results stay in device memory: reduce never makes the host wait.
  mgpu::buffer<int> result(1, ctx);
  mgpu::reduce(data.data(), n, result.data(), 0, mgpu::plus<>(), ctx);
  std::printf("\nreduce (plus): %d\n", read_one(result));
  mgpu::reduce(data.data(), n, result.data(), std::numeric_limits<int>::lowest(), mgpu::maximum<>(), ctx);
  std::printf("reduce (maximum): %d\n", read_one(result));

  // The map runs inside the reduction's load. A __host__ __device__ lambda, because nvcc cannot
  // tell host code the return type of a __device__-only one.
  auto square = [] MGPU_HOST_DEVICE_LAMBDA(int x) { return x * x; };
  mgpu::transform_reduce(data.data(), n, result.data(), 0, mgpu::plus<>(), square, ctx);
  std::printf("transform_reduce (sum of squares): %d\n", read_one(result));

  mgpu::buffer<int> scanned(n, ctx), total(1, ctx);
  mgpu::exclusive_scan(data.data(), n, scanned.data(), 0, mgpu::plus<>(), total.data(), ctx);
  std::printf("\nexclusive_scan (plus, init 0):\n");
  print_array(scanned, "%4d");
  std::printf("Total, written to device memory by the same call: %d\n", read_one(total));

  // In place: output may be the input itself.
  mgpu::buffer<int> running(data.to_host(), ctx);
  mgpu::inclusive_scan(running.data(), n, running.data(), mgpu::plus<>(), ctx);
  std::printf("\ninclusive_scan (plus, in place):\n");
  print_array(running, "%4d");

  // A non-commutative operator: "the right operand unless it is 0" carries the last non-zero
  // value forward over the zeros. It is associative, and scan combines strictly in order.
  std::vector<int> sparse = random_ints(n, 100, 7);
  for (int& v : sparse) v = v < 80 ? 0 : v;
  mgpu::buffer<int> marks(sparse, ctx), filled(n, ctx);
  auto last_nonzero = [] MGPU_HOST_DEVICE_LAMBDA(int a, int b) { return b != 0 ? b : a; };
  mgpu::inclusive_scan(marks.data(), n, filled.data(), last_nonzero, ctx);
  std::printf("\nSparse input:\n");
  print_array(marks, "%4d");
  std::printf("\ninclusive_scan (b != 0 ? b : a, non-commutative: fills forward):\n");
  print_array(filled, "%4d");

  // Iterators stand in for arrays: the sum of i * i for i < k, with no input in memory.
  const int m = 30;
  mgpu::buffer<int> squares(m, ctx);
  mgpu::transform_exclusive_scan(mgpu::make_counting_iterator(0), m, squares.data(), 0, mgpu::plus<>(), square, ctx);
  std::printf("\ntransform_exclusive_scan of i * i over counting_iterator(0):\n");
  print_array(squares, "%5d");
}

// ---- writing your own kernel -------------------------------------------------------------------

void demo_write_your_own_kernel(mgpu::context& ctx) {
  std::printf("\n\nWRITE YOUR OWN KERNEL DEMONSTRATION:\n\n");

  const int n = 100;
  constexpr int NT = 32;
  using scan_t = mgpu::cta_scan<NT, int>;
  int tiles = int(mgpu::div_up(n, NT));
  mgpu::buffer<int> data(random_ints(n, 10, 2013), ctx), scanned(n, ctx), tile_totals(tiles, ctx);
  std::printf("Input array:\n");
  print_array(data, "%4d");

  // One CTA of NT threads per tile of NT values, one value per thread. The last tile is partial:
  // `count` tells cta_scan how many threads hold real values.
  const int* input = data.data();
  int* output = scanned.data();
  int* totals = tile_totals.data();
  mgpu::cta_launch<NT>(
      [=] MGPU_LAMBDA(int tid, int cta) {
        __shared__ mgpu::shared_storage<scan_t::storage_t> storage;
        int first = cta * NT;
        int valid = n - first < NT ? n - first : NT;
        int x = tid < valid ? input[first + tid] : 0;
        scan_t::result_t r = scan_t::inclusive(tid, x, storage.get(), mgpu::plus<>(), valid);
        if (tid < valid) output[first + tid] = r.scan;
        if (tid == 0) totals[cta] = r.reduction;
      },
      tiles, ctx);

  std::printf("\nEach CTA scans its own tile of %d values (cta_launch + cta_scan):\n", NT);
  print_array(scanned, "%4d");
  std::printf("\nTile totals:\n");
  print_array(tile_totals, "%4d");
}

// ---- bulk remove and bulk insert ---------------------------------------------------------------

void demo_bulk(mgpu::context& ctx) {
  std::printf("\n\nBULK REMOVE DEMONSTRATION:\n\n");

  // 100 ascending integers, 0 to 99.
  const int n = 100;
  mgpu::buffer<int> data(n, ctx);
  int* d = data.data();
  mgpu::transform([=] MGPU_LAMBDA(std::int64_t i) { d[i] = int(i); }, n, ctx);
  std::printf("Input array:\n");
  print_array(data, "%4d");

  // Remove every 3rd element: the indices 0, 3, 6, ... come from a step_iterator.
  const int remove_count = int(mgpu::div_up(n, 3));
  mgpu::buffer<int> kept(n - remove_count, ctx);
  mgpu::bulk_remove(data.data(), n, mgpu::make_step_iterator(0, 3), remove_count, kept.data(), ctx);
  std::printf("\nRemoving every 3rd element:\n");
  print_array(kept, "%4d");

  std::printf("\n\nBULK INSERT DEMONSTRATION:\n\n");
  std::printf("Input array:\n");
  print_array(data, "%4d");

  // Insert 1000, 1010, 1020, ... before every 5th element starting at index 2; values and
  // insertion indices are both step_iterators.
  const int insert_count = int(mgpu::div_up(n - 2, 5));
  mgpu::buffer<int> grown(n + insert_count, ctx);
  mgpu::bulk_insert(mgpu::make_step_iterator(1000, 10), mgpu::make_step_iterator(2, 5), insert_count, data.data(), n,
                    grown.data(), ctx);
  std::printf("\nInserting before every 5th element starting at item 2:\n");
  print_array(grown, "%4d");
}

// ---- merge, mergesort, segmented sort, locality sort -------------------------------------------

void demo_merge_sort(mgpu::context& ctx) {
  std::printf("\n\nMERGE KEYS DEMONSTRATION:\n\n");

  // Two lists of 50 random integers in [0, 100), sorted on the device first.
  const int n = 50;
  mgpu::buffer<int> a(random_ints(n, 100, 2014), ctx), b(random_ints(n, 100, 2015), ctx);
  mgpu::mergesort(a.data(), n, mgpu::less<>(), ctx);
  mgpu::mergesort(b.data(), n, mgpu::less<>(), ctx);
  std::printf("A:\n");
  print_array(a, "%4d");
  std::printf("\nB:\n");
  print_array(b, "%4d");

  mgpu::buffer<int> merged(2 * n, ctx), merged_values(2 * n, ctx);
  mgpu::merge(a.data(), n, b.data(), n, merged.data(), mgpu::less<>(), ctx);
  std::printf("\nmerge (keys):\n");
  print_array(merged, "%4d");

  std::printf("\n\nMERGE PAIRS DEMONSTRATION:\n\n");
  // Each value names its key's origin: a[i] carries i, b[i] carries 100 + i (counting_iterators).
  // On equal keys A's come first, as in std::merge.
  mgpu::merge(a.data(), mgpu::make_counting_iterator(0), n, b.data(), mgpu::make_counting_iterator(100), n,
              merged.data(), merged_values.data(), mgpu::less<>(), ctx);
  std::printf("Merged keys:\n");
  print_array(merged, "%4d");
  std::printf("\nMerged values (i: a[i], 100 + i: b[i]):\n");
  print_array(merged_values, "%4d");

  std::printf("\n\nMERGESORT KEYS DEMONSTRATION:\n\n");
  const int m = 100;
  mgpu::buffer<int> keys(random_ints(m, 100, 2016), ctx);
  std::printf("Input keys:\n");
  print_array(keys, "%4d");
  mgpu::mergesort(keys.data(), m, mgpu::less<>(), ctx);
  std::printf("\nmergesort (less):\n");
  print_array(keys, "%4d");

  std::printf("\n\nMERGESORT PAIRS DEMONSTRATION:\n\n");
  // Keys in [0, 10), so most are repeated; each value is its key's original position. The sort
  // is stable: within a run of equal keys the values still ascend.
  mgpu::buffer<int> pair_keys(random_ints(m, 10, 2017), ctx), pair_values(m, ctx);
  int* pv = pair_values.data();
  mgpu::transform([=] MGPU_LAMBDA(std::int64_t i) { pv[i] = int(i); }, m, ctx);
  std::printf("Input keys:\n");
  print_array(pair_keys, "%4d");
  mgpu::mergesort(pair_keys.data(), pair_values.data(), m, mgpu::less<>(), ctx);
  std::printf("\nSorted keys:\n");
  print_array(pair_keys, "%4d");
  std::printf("\nSorted values (original positions: what mergesort_indices, below, writes):\n");
  print_array(pair_values, "%4d");

  std::printf("\n\nMERGESORT INDICES DEMONSTRATION:\n\n");
  // The sorting permutation without a values array: indices[i] is where sorted key i was.
  const int k = 10;
  mgpu::buffer<int> idx_keys(std::vector<int>{5, 3, 8, 3, 1, 9, 5, 0, 7, 3}, ctx), indices(k, ctx);
  std::printf("Input keys:\n");
  print_array(idx_keys, "%4d");
  mgpu::mergesort_indices(idx_keys.data(), k, indices.data(), mgpu::less<>(), ctx);
  std::printf("\nmergesort_indices, sorted keys:\n");
  print_array(idx_keys, "%4d");
  std::printf("\nIndices (original position of each sorted key; equal keys in input order):\n");
  print_array(indices, "%4d");

  std::printf("\n\nSEGMENTED SORT DEMONSTRATION:\n\n");
  // Segments of 1 to 20 keys: each head is where a segment starts.
  std::vector<int> heads;
  std::vector<int> gaps = random_ints(m, 20, 2018);
  for (int h = 0, i = 0; h < m; h += 1 + gaps[std::size_t(i++)]) heads.push_back(h);
  mgpu::buffer<int> seg_heads(heads, ctx);
  mgpu::buffer<int> seg_keys(random_ints(m, 100, 2019), ctx);
  std::printf("Segment heads:\n");
  print_array(seg_heads, "%4d");
  std::printf("\nInput keys:\n");
  print_array(seg_keys, "%4d");
  auto segments = mgpu::segments_by_heads(seg_heads.data(), std::int64_t(heads.size()));
  mgpu::segmented_sort(seg_keys.data(), m, segments, mgpu::less<>(), ctx);
  std::printf("\nsegmented_sort (each segment sorted on its own):\n");
  print_array(seg_keys, "%4d");

  std::printf("\n\nSEGMENTED SORT PAIRS AND INDICES DEMONSTRATION:\n\n");
  // Segments [0, 4), [4, 5), [5, 11), [11, 16), [16, 20) given by head flags: bit i % 32 of word
  // i / 32 set means element i starts a segment. Values are letters in input order.
  const int f = 20;
  std::vector<unsigned> flag_words(std::size_t(mgpu::div_up(f, 32)), 0u);
  for (int h : {0, 4, 5, 11, 16}) flag_words[std::size_t(h / 32)] |= 1u << (h % 32);
  const std::vector<int> flag_keys = {7, 2, 9, 2, 5, 8, 1, 8, 0, 6, 3, 4, 4, 9, 1, 4, 3, 0, 2, 1};
  mgpu::buffer<unsigned> seg_flags(flag_words, ctx);
  mgpu::buffer<int> fkeys(flag_keys, ctx), fkeys2(flag_keys, ctx), findices(f, ctx);
  mgpu::buffer<char> fvalues(letters(f), ctx);
  std::printf("Head flags (word 0 = 0x%08x; 1 marks a segment start):\n", flag_words[0]);
  print_rows(std::size_t(f), [&](std::size_t i) { std::printf("%4u", (flag_words[i / 32] >> (i % 32)) & 1u); });
  std::printf("\nInput keys:\n");
  print_array(fkeys, "%4d");
  std::printf("\nInput values:\n");
  print_array(fvalues, "%4c");
  auto flagged = mgpu::segments_by_flags(seg_flags.data());
  mgpu::segmented_sort(fkeys.data(), fvalues.data(), f, flagged, mgpu::less<>(), ctx);
  std::printf("\nsegmented_sort (pairs), keys:\n");
  print_array(fkeys, "%4d");
  std::printf("\nValues (moved with their keys; equal keys keep input order):\n");
  print_array(fvalues, "%4c");
  mgpu::segmented_sort_indices(fkeys2.data(), f, flagged, findices.data(), mgpu::less<>(), ctx);
  std::printf("\nsegmented_sort_indices of the same input, indices:\n");
  print_array(findices, "%4d");

  std::printf("\n\nLOCALITY SORT DEMONSTRATION:\n\n");
  // Nearly sorted: key i is i plus a random 0 to 9, so every key is near its place.
  std::vector<int> nearly = random_ints(m, 10, 2020);
  for (int i = 0; i < m; ++i) nearly[std::size_t(i)] += i;
  mgpu::buffer<int> local_keys(nearly, ctx);
  std::printf("Input keys:\n");
  print_array(local_keys, "%4d");
  mgpu::locality_sort(local_keys.data(), m, mgpu::less<>(), ctx);
  std::printf("\nlocality_sort:\n");
  print_array(local_keys, "%4d");
}

// ---- radix sort --------------------------------------------------------------------------------

void demo_radix_sort(mgpu::context& ctx) {
  std::printf("\n\nRADIX SORT KEYS DEMONSTRATION:\n\n");
  const int n = 10;
  const std::vector<int> input = {170, -45, 75, -90, 802, 24, 2, 66, -1, 0};
  mgpu::buffer<int> keys(input, ctx);
  std::printf("Input keys:\n");
  print_array(keys, "%4d");
  mgpu::radix_sort(keys.data(), n, ctx);
  std::printf("\nradix_sort (ascending):\n");
  print_array(keys, "%4d");
  mgpu::radix_sort(keys.data(), n, mgpu::radix_order::descending, ctx);
  std::printf("\nradix_sort (radix_order::descending):\n");
  print_array(keys, "%4d");

  std::printf("\n\nRADIX SORT PAIRS DEMONSTRATION:\n\n");
  // Each value is a letter naming its key's input position (a = 0, b = 1, ...); items print as
  // key then value. Equal keys keep their input order, descending included: the sort is stable.
  const std::vector<int> pair_input = {3, 1, 3, 0, 2, 1, 3, 0, 2, 1};
  auto print_pairs = [](const mgpu::buffer<int>& k, const mgpu::buffer<char>& v) {
    std::vector<int> hk = k.to_host();
    std::vector<char> hv = v.to_host();
    print_rows(hk.size(), [&](std::size_t i) { std::printf("%3d%c", hk[i], hv[i]); });
  };
  mgpu::buffer<int> asc_keys(pair_input, ctx), desc_keys(pair_input, ctx);
  mgpu::buffer<char> asc_values(letters(n), ctx), desc_values(letters(n), ctx);
  std::printf("Input pairs:\n");
  print_pairs(asc_keys, asc_values);
  mgpu::radix_sort(asc_keys.data(), asc_values.data(), n, ctx);
  std::printf("\nradix_sort (pairs, ascending):\n");
  print_pairs(asc_keys, asc_values);
  mgpu::radix_sort(desc_keys.data(), desc_values.data(), n, mgpu::radix_order::descending, ctx);
  std::printf("\nradix_sort (pairs, radix_order::descending):\n");
  print_pairs(desc_keys, desc_values);
}

// ---- sorted search, load-balancing search, interval expand, join -------------------------------

// Sorted random integers in [0, range).
std::vector<int> sorted_random_ints(int count, int range, unsigned seed) {
  std::vector<int> values = random_ints(count, range, seed);
  std::sort(values.begin(), values.end());
  return values;
}

// An index with the match flag in its most significant bit, printed as the seeds print it: a *
// for a match, then the index.
void print_index_match(const std::vector<int>& values) {
  print_rows(values.size(), [&](std::size_t i) {
    unsigned v = unsigned(values[i]);
    std::printf("%c%3u", v >> 31 ? '*' : ' ', v & 0x7fffffffu);
  });
}

void demo_search(mgpu::context& ctx) {
  std::printf("\n\nSORTED SEARCH DEMONSTRATION:\n\n");
  // A haystack of 200 sorted integers in [0, 300) and 100 sorted needles in the same range.
  std::vector<int> haystack = sorted_random_ints(200, 300, 11), needles = sorted_random_ints(100, 300, 12);
  mgpu::buffer<int> d_haystack(haystack, ctx), d_needles(needles, ctx), lower(100, ctx);
  std::printf("Haystack array:\n");
  print_array(haystack, "%4d");
  std::printf("\nNeedles array:\n");
  print_array(needles, "%4d");
  mgpu::sorted_search(d_needles.data(), 100, d_haystack.data(), 200, lower.data(), mgpu::less<>(), ctx);
  std::printf("\nLower bound array:\n");
  print_array(lower, "%4d");

  std::printf("\n\nSORTED SEARCH DEMONSTRATION (2):\n\n");
  std::vector<int> a = sorted_random_ints(100, 300, 13), b = sorted_random_ints(100, 300, 14);
  mgpu::buffer<int> da(a, ctx), db(b, ctx), a_indices(100, ctx), b_indices(100, ctx);
  mgpu::buffer<std::int64_t> a_matches(1, ctx), b_matches(1, ctx);
  std::printf("A array:\n");
  print_array(a, "%4d");
  std::printf("\nB array:\n");
  print_array(b, "%4d");
  mgpu::sorted_search<mgpu::bounds::lower, mgpu::search_output::index_match, mgpu::search_output::index_match>(
      da.data(), 100, db.data(), 100, a_indices.data(), b_indices.data(), a_matches.data(), b_matches.data(),
      mgpu::less<>(), ctx);
  std::printf("\nLower bound of A into B (* for match):\n");
  print_index_match(a_indices.to_host());
  std::printf("\nUpper bound of B into A (* for match):\n");
  print_index_match(b_indices.to_host());
  std::printf("\n%lld of A and %lld of B have a match in the other\n", (long long)read_one(a_matches),
              (long long)read_one(b_matches));

  // Both bounds of each A in B at once (vectorized std::equal_range): B's keys equal to A[i] are
  // B[lower[i], upper[i]).
  mgpu::buffer<int> equal_lower(100, ctx), equal_upper(100, ctx);
  mgpu::sorted_equal_range(da.data(), 100, db.data(), 100, equal_lower.data(), equal_upper.data(), mgpu::less<>(), ctx);
  std::printf("\nEqual range of A in B, lower bounds:\n");
  print_array(equal_lower, "%4d");
  std::printf("\nand upper bounds (they differ where A's key is in B):\n");
  print_array(equal_upper, "%4d");

  std::printf("\n\nLOAD-BALANCING SEARCH AND INTERVAL EXPAND DEMONSTRATION:\n\n");
  // The seeds' alphabet example: each letter repeated counts[i] times. The counts' exclusive scan
  // is the heads of the segments, and the output items are expanded from the letters.
  const std::vector<int> counts = {3, 1, 0, 0, 7, 3, 2, 14, 4, 6, 0, 2, 1, 5, 3, 0, 5, 1, 6, 2, 0, 0, 9, 3, 2, 1};
  std::vector<int> heads(26);
  int total = 0;
  for (int i = 0; i < 26; ++i) heads[std::size_t(i)] = total, total += counts[std::size_t(i)];
  std::vector<char> alphabet(26);
  for (int i = 0; i < 26; ++i) alphabet[std::size_t(i)] = char('A' + i);
  mgpu::buffer<int> d_heads(heads, ctx), segment_of(total, ctx);
  mgpu::buffer<char> d_alphabet(alphabet, ctx), expanded(total, ctx);
  std::printf("Counts:\n");
  print_array(counts, "%4d");
  std::printf("\nHeads (the exclusive scan of the counts):\n");
  print_array(heads, "%4d");
  auto segments = mgpu::segments_by_heads(d_heads.data(), 26);
  mgpu::load_balance_search(total, segments, segment_of.data(), ctx);
  std::printf("\nload_balance_search: the segment of each of the %d items:\n", total);
  print_array(segment_of, "%4d");
  mgpu::interval_expand(d_alphabet.data(), total, segments, expanded.data(), ctx);
  std::vector<char> letters_out = expanded.to_host();
  std::printf("\ninterval_expand of the alphabet:\n%s\n", std::string(letters_out.begin(), letters_out.end()).c_str());

  std::printf("\n\nRELATIONAL JOIN DEMONSTRATION:\n\n");
  std::vector<int> left = sorted_random_ints(20, 12, 16), right = sorted_random_ints(20, 12, 17);
  mgpu::buffer<int> d_left(left, ctx), d_right(right, ctx);
  std::printf("A keys:\n");
  print_array(left, "%4d");
  std::printf("\nB keys:\n");
  print_array(right, "%4d");
  for (mgpu::join_kind kind : {mgpu::join_kind::inner, mgpu::join_kind::outer}) {
    mgpu::join_result rows = mgpu::join(d_left.data(), 20, d_right.data(), 20, kind, mgpu::less<>(), ctx);
    std::vector<std::int64_t> ai = rows.a_indices.to_host(), bi = rows.b_indices.to_host();
    std::printf("\n%s join: %lld rows (a index, b index: key):\n", kind == mgpu::join_kind::inner ? "inner" : "outer",
                (long long)rows.count);
    print_rows(ai.size(), [&](std::size_t r) {
      int key = ai[r] >= 0 ? left[std::size_t(ai[r])] : right[std::size_t(bi[r])];
      std::printf("(%2lld,%2lld:%2d)", (long long)ai[r], (long long)bi[r], key);
    });
  }
}

// ---- multisets ---------------------------------------------------------------------------------

void demo_sets(mgpu::context& ctx) {
  std::printf("\n\nMULTISET DEMONSTRATION:\n\n");
  std::vector<int> a = sorted_random_ints(20, 10, 18), b = sorted_random_ints(20, 10, 19);
  mgpu::buffer<int> da(a, ctx), db(b, ctx), keys(40, ctx);
  std::printf("A keys:\n");
  print_array(a, "%4d");
  std::printf("\nB keys:\n");
  print_array(b, "%4d");
  auto print_kept = [&](const char* name, std::int64_t count) {
    std::vector<int> kept = keys.to_host();
    kept.resize(std::size_t(count));
    std::printf("\n%s: %lld keys\n", name, (long long)count);
    print_array(kept, "%4d");
  };
  auto lt = mgpu::less<>();
  print_kept("set_intersection", mgpu::set_intersection(da.data(), 20, db.data(), 20, keys.data(), lt, ctx));
  print_kept("set_union", mgpu::set_union(da.data(), 20, db.data(), 20, keys.data(), lt, ctx));
  print_kept("set_difference (A - B)", mgpu::set_difference(da.data(), 20, db.data(), 20, keys.data(), lt, ctx));
  print_kept("set_symmetric_difference",
             mgpu::set_symmetric_difference(da.data(), 20, db.data(), 20, keys.data(), lt, ctx));

  // With values that name each copy: A's are a, b, c, ..., B's A, B, C, ...
  std::vector<char> b_names = letters(20);
  for (char& c : b_names) c = char(c - 'a' + 'A');
  mgpu::buffer<char> a_values(letters(20), ctx), b_values(b_names, ctx), values(40, ctx);
  auto print_pairs = [&](const char* name, std::int64_t count) {
    std::vector<int> k = keys.to_host();
    std::vector<char> v = values.to_host();
    std::printf("\n%s of pairs: %lld (key value)\n", name, (long long)count);
    print_rows(std::size_t(count), [&](std::size_t i) { std::printf("%3d %c", k[i], v[i]); });
  };
  std::printf("\nA values: ");
  for (char c : letters(20)) std::printf("%c", c);
  std::printf("\nB values: %s\n", std::string(b_names.begin(), b_names.end()).c_str());
  print_pairs("set_union", mgpu::set_union(da.data(), a_values.data(), 20, db.data(), b_values.data(), 20, keys.data(),
                                           values.data(), lt, ctx));
  print_pairs("set_symmetric_difference",
              mgpu::set_symmetric_difference(da.data(), a_values.data(), 20, db.data(), b_values.data(), 20,
                                             keys.data(), values.data(), lt, ctx));

  // The device form: the count stays in device memory; nothing waits until it is read.
  mgpu::buffer<std::int64_t> count(1, ctx);
  mgpu::set_difference(db.data(), 20, da.data(), 20, keys.data(), count.data(), lt, ctx);
  print_kept("set_difference (B - A), count from device memory", read_one(count));
}

// ---- segmented reduce, reduce by key, spmv -----------------------------------------------------

void demo_segmented_reduce(mgpu::context& ctx) {
  std::printf("\n\nSEGMENTED REDUCE DEMONSTRATION:\n\n");
  // 100 values in 25 segments of random sizes 0 to 8 (many empty, at both ends too), given as CSR
  // offsets: 26 entries, the last one the count.
  const int n = 100;
  std::vector<int> sizes = random_ints(25, 9, 14), offsets{0};
  sizes[0] = sizes[1] = sizes[23] = sizes[24] = 0;
  for (int s = 0; s < 22; ++s) offsets.push_back(offsets.back() + sizes[std::size_t(s)]);
  sizes[22] = n - offsets.back();  // the sizes add up to n
  for (int s = 22; s < 25; ++s) offsets.push_back(offsets.back() + sizes[std::size_t(s)]);
  mgpu::buffer<int> values(random_ints(n, 10, 15), ctx), d_offsets(offsets, ctx), sums(25, ctx), maxima(25, ctx);
  std::printf("Input array:\n");
  print_array(values, "%4d");
  std::printf("\nSegment offsets (CSR: 25 segments, 26 offsets):\n");
  print_array(offsets, "%4d");
  auto segments = mgpu::segments_by_heads(d_offsets.data(), 25);
  mgpu::segmented_reduce(values.data(), n, segments, sums.data(), 0, mgpu::plus<>(), ctx);
  std::printf("\nsegmented_reduce (plus, init 0; empty segments get init):\n");
  print_array(sums, "%4d");
  mgpu::segmented_reduce(values.data(), n, segments, maxima.data(), -1, mgpu::maximum<>(), ctx);
  std::printf("\nsegmented_reduce (maximum, init -1):\n");
  print_array(maxima, "%4d");

  // lbs_segreduce: values computed from (index, segment, rank); here rank * value.
  const int* v = values.data();
  mgpu::lbs_segreduce([=] MGPU_LAMBDA(std::int64_t i, std::int64_t, std::int64_t rank) { return int(rank) * v[i]; }, n,
                      segments, sums.data(), 0, mgpu::plus<>(), ctx);
  std::printf("\nlbs_segreduce (sum of rank * value):\n");
  print_array(sums, "%4d");

  std::printf("\n\nREDUCE BY KEY DEMONSTRATION:\n\n");
  std::vector<int> keys = random_ints(40, 3, 16);
  mgpu::buffer<int> d_keys(keys, ctx), ones(std::vector<int>(40, 1), ctx), keys_out(40, ctx), counts(40, ctx);
  mgpu::buffer<std::int64_t> runs(1, ctx);
  mgpu::reduce_by_key(d_keys.data(), ones.data(), 40, keys_out.data(), counts.data(), runs.data(), mgpu::plus<>(), ctx);
  const std::int64_t num_runs = read_one(runs);
  std::vector<int> run_keys = keys_out.to_host(), run_lengths = counts.to_host();
  run_keys.resize(std::size_t(num_runs)), run_lengths.resize(std::size_t(num_runs));
  std::printf("Keys:\n");
  print_array(keys, "%4d");
  std::printf("\nreduce_by_key of ones (run-length encoding): %lld runs\nKeys:\n", (long long)num_runs);
  print_array(run_keys, "%4d");
  std::printf("\nLengths:\n");
  print_array(run_lengths, "%4d");

  std::printf("\n\nSPMV DEMONSTRATION:\n\n");
  // A 4 x 5 matrix with an empty row, in CSR form, times x = {1, 2, 3, 4, 5}:
  //   [ 1 0 2 0 0 ]
  //   [ 0 0 0 0 0 ]
  //   [ 0 3 0 4 5 ]
  //   [ 6 0 0 0 7 ]
  mgpu::buffer<double> a_values(std::vector<double>{1, 2, 3, 4, 5, 6, 7}, ctx),
      x(std::vector<double>{1, 2, 3, 4, 5}, ctx), y(4, ctx);
  mgpu::buffer<int> columns(std::vector<int>{0, 2, 1, 3, 4, 0, 4}, ctx), rows(std::vector<int>{0, 2, 2, 5, 7}, ctx);
  auto a = mgpu::make_csr_matrix(a_values.data(), columns.data(), rows.data(), 4, 5, 7);
  mgpu::spmv(a, x.data(), y.data(), ctx);
  std::printf("y = A x:\n");
  print_array(y, "%6.1f");
  // The partition once, then products with it: A times x, then times y padded to 5 entries.
  auto plan = mgpu::spmv_preprocess(a, ctx);
  mgpu::buffer<double> x2(std::vector<double>{1, 0, 0, 0, 1}, ctx), y2(4, ctx);
  mgpu::spmv(plan, x2.data(), y2.data(), ctx);
  std::printf("\ny = A {1, 0, 0, 0, 1}, with a plan:\n");
  print_array(y2, "%6.1f");
}

// ---- the primer patterns: compaction, histogram, segmented scan, the map family ------------------

// A particle as an array of structs stores it; the map section transposes them to a struct of arrays.
struct particle {
  float mass;
  int id;
};

void demo_primer(mgpu::context& ctx) {
  std::printf("\n\nCOMPACT DEMONSTRATION:\n\n");
  // The seeds' example: keep the odd numbers, in order.
  const std::vector<int> seed_input = {1, 5, 6, 7, 0, 1, 3, 4, 2, 2, 2, 9};
  const int s = int(seed_input.size());
  mgpu::buffer<int> small(seed_input, ctx), kept(s, ctx);
  std::printf("Input array:\n");
  print_array(small, "%4d");
  auto odd = [] MGPU_HOST_DEVICE_LAMBDA(int x) { return x % 2 != 0; };
  std::int64_t k = mgpu::compact(small.data(), s, kept.data(), odd, ctx);  // the count comes back to the host
  std::printf("\ncompact (odd values): %lld kept\n", (long long)k);
  print_array(first_values(kept, k), "%4d");

  // 100 random values; keep those whose flag is set (every value at a position divisible by 3).
  const int n = 100;
  mgpu::buffer<int> data(random_ints(n, 100, 2016), ctx), selected(n, ctx);
  mgpu::buffer<std::int64_t> count(1, ctx);  // the device form: the count stays on the device
  std::vector<unsigned char> flags(n);
  for (int i = 0; i < n; ++i) flags[std::size_t(i)] = i % 3 == 0;
  mgpu::buffer<unsigned char> d_flags(flags, ctx);
  std::printf("\nInput array:\n");
  print_array(data, "%4d");
  mgpu::compact_by_flags(data.data(), d_flags.data(), n, selected.data(), count.data(), ctx);
  std::int64_t flagged = read_one(count);
  std::printf("\ncompact_by_flags (flags at positions 0, 3, 6, ...): %lld kept\n", (long long)flagged);
  print_array(first_values(selected, flagged), "%4d");

  // transform_compact: no input array. The numbers below 1000 whose digits sum to 10, each written
  // with its position by the write function.
  mgpu::buffer<int> found(1000, ctx);
  int* f = found.data();
  auto digits_sum_to_10 = [] MGPU_LAMBDA(std::int64_t i) { return i / 100 + i / 10 % 10 + i % 10 == 10; };
  auto write = [=] MGPU_LAMBDA(std::int64_t i, std::int64_t position) { f[position] = int(i); };
  std::int64_t found_count = mgpu::transform_compact(digits_sum_to_10, write, 1000, ctx);
  std::printf("\ntransform_compact (numbers below 1000 whose digits sum to 10): %lld\n", (long long)found_count);
  print_array(first_values(found, found_count), "%4d");

  std::printf("\n\nHISTOGRAM DEMONSTRATION:\n\n");
  // The seeds' example: 5 buckets of width 10 over [0, 50).
  const std::vector<int> scores = {15, 11, 2, 25, 4, 5, 6, 7, 10, 49, 1, 3, 4};
  mgpu::buffer<int> d_scores(scores, ctx), buckets(5, ctx);
  std::printf("Input array:\n");
  print_array(d_scores, "%4d");
  mgpu::histogram(d_scores.data(), std::int64_t(scores.size()), buckets.data(), 5, 0, 50, ctx);
  std::printf("\nhistogram (5 bins over [0, 50)):\n");
  print_array(buckets, "%4d");
  // The 100 random values in [0, 100) above, in 5 bins over [0, 50): about half are outside.
  mgpu::histogram(data.data(), n, buckets.data(), 5, 0, 50, ctx);
  std::printf("\nhistogram of the 100 values above (5 bins over [0, 50); the rest are ignored):\n");
  print_array(buckets, "%4d");
  // Floating-point samples: 1000 values of sin(i) in 8 bins over [-1, 1).
  mgpu::buffer<float> waves(1000, ctx);
  mgpu::buffer<int> wave_bins(8, ctx);
  float* w = waves.data();
  mgpu::transform([=] MGPU_LAMBDA(std::int64_t i) { w[i] = sinf(float(i)); }, 1000, ctx);
  mgpu::histogram(waves.data(), 1000, wave_bins.data(), 8, -1.0f, 1.0f, ctx);
  std::printf("\nhistogram of sin(i), i < 1000 (8 bins over [-1, 1)):\n");
  print_array(wave_bins, "%4d");

  std::printf("\n\nSEGMENTED SCAN DEMONSTRATION:\n\n");
  // Segments start at the heads; positions before the first head are a segment of their own.
  const std::vector<int> heads = {3, 10, 10, 17, 30, 31, 45};
  mgpu::buffer<int> d_heads(heads, ctx), ranks(50, ctx), sums(50, ctx);
  std::printf("Segment heads:\n");
  print_array(heads, "%4d");
  auto segments = mgpu::segments_by_heads(d_heads.data(), std::int64_t(heads.size()));
  mgpu::segmented_exclusive_scan(mgpu::make_constant_iterator(1), 50, segments, ranks.data(), 0, mgpu::plus<>(), ctx);
  std::printf("\nsegmented_exclusive_scan of 50 ones (each position's rank in its segment):\n");
  print_array(ranks, "%4d");
  std::printf("\nInput array:\n");
  print_array(first_values(data, 50), "%4d");
  mgpu::segmented_inclusive_scan(data.data(), 50, segments, sums.data(), mgpu::plus<>(), ctx);
  std::printf("\nsegmented_inclusive_scan (plus) of the first 50 values:\n");
  print_array(sums, "%4d");
  // The same segments as head flags: bit i % 32 of word i / 32 set where position i starts one.
  std::vector<unsigned> head_flags(2, 0u);
  for (int h : heads) head_flags[std::size_t(h / 32)] |= 1u << (h % 32);
  mgpu::buffer<unsigned> d_head_flags(head_flags, ctx);
  mgpu::segmented_inclusive_scan(data.data(), 50, mgpu::segments_by_flags(d_head_flags.data()), sums.data(),
                                 mgpu::maximum<>(), ctx);
  std::printf("\nsegmented_inclusive_scan (maximum), the segments given by flags:\n");
  print_array(sums, "%4d");

  std::printf("\n\nMAP, GATHER, SCATTER, STENCIL, TRANSPOSE DEMONSTRATION:\n\n");
  // All four are mgpu::transform with a lambda: one call of f per index.
  const int m = 20;
  mgpu::buffer<int> values(random_ints(m, 100, 2017), ctx), indices(random_ints(m, m, 2018), ctx), out(m, ctx);
  const int* v = values.data();
  const int* idx = indices.data();
  int* o = out.data();
  std::printf("Input array:\n");
  print_array(values, "%4d");
  std::printf("\nIndices:\n");
  print_array(indices, "%4d");
  mgpu::transform([=] MGPU_LAMBDA(std::int64_t i) { o[i] = v[idx[i]]; }, m, ctx);
  std::printf("\ngather (out[i] = in[indices[i]]):\n");
  print_array(out, "%4d");
  // Scatter through a permutation (reversal): every output written once.
  mgpu::transform([=] MGPU_LAMBDA(std::int64_t i) { o[m - 1 - i] = v[i]; }, m, ctx);
  std::printf("\nscatter (out[m - 1 - i] = in[i]):\n");
  print_array(out, "%4d");
  mgpu::transform(
      [=] MGPU_LAMBDA(std::int64_t i) {
        int left = v[i > 0 ? i - 1 : 0], right = v[i + 1 < m ? i + 1 : i];
        o[i] = (left + 2 * v[i] + right) / 4;
      },
      m, ctx);
  std::printf("\nstencil (out[i] = (in[i - 1] + 2 in[i] + in[i + 1]) / 4, edges repeated):\n");
  print_array(out, "%4d");
  // Transpose an array of structs into a struct of arrays.
  std::vector<particle> host_particles;
  for (int i = 0; i < 10; ++i) host_particles.push_back(particle{0.5f * float(i), 100 + i});
  mgpu::buffer<particle> particles(host_particles, ctx);
  mgpu::buffer<float> masses(10, ctx);
  mgpu::buffer<int> ids(10, ctx);
  const particle* p = particles.data();
  float* mass = masses.data();
  int* id = ids.data();
  mgpu::transform(
      [=] MGPU_LAMBDA(std::int64_t i) {
        mass[i] = p[i].mass;
        id[i] = p[i].id;
      },
      10, ctx);
  std::printf("\ntranspose of 10 particles {mass, id} to arrays: masses\n");
  print_array(masses, "%4.1f");
  std::printf("ids\n");
  print_array(ids, "%4d");
}

}  // namespace

int main() {
  try {
    mgpu::context ctx;
#if defined(MGPU_BACKEND_CUDA)
    const char* backend = "CUDA";
#else
    const char* backend = "simulator";
#endif
    std::printf("mgpu demo on %s (%s backend)\n", ctx.props().name.c_str(), backend);
    demo_reduce_scan(ctx);
    demo_write_your_own_kernel(ctx);
    demo_bulk(ctx);
    demo_merge_sort(ctx);
    demo_radix_sort(ctx);
    demo_search(ctx);
    demo_sets(ctx);
    demo_segmented_reduce(ctx);
    demo_primer(ctx);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mgpu demo failed: %s\n", e.what());
    return 1;
  }
}
