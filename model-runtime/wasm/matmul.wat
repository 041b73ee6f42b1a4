;; WebAssembly SIMD matrix multiply for the model runtime (see ../wasm-matmul.ts).
;; Built into wasm-matmul.generated.ts by `npx tsx model-runtime/scripts/build-wasm-kernels.ts`
;; (wabt from npm; a test checks the committed bytes match this source).
;;
;; y[m,n] (+)= Σ_k x[m,k]·w[n,k] — the y = x·Wᵀ product with W in the Hugging Face
;; [out × in] layout, so each output is a dot product of two contiguous rows.
;; The caller pads M to a multiple of 2, N and K to multiples of 4 (zeros), which keeps
;; this kernel to its one fast path. A 2 × 4 tile of outputs lives in eight f32x4
;; accumulators (lane j sums the k ≡ j mod 4 terms); x86-64 has 16 vector registers, so
;; the tile plus the three operand registers fit without spilling.
;;
;; Every output is summed in the same order whatever M is and wherever it sits in a tile,
;; so a row gives bit-identical results alone (decoding) or inside a long prefill (scoring):
;; sampling-time and training-time logprobs agree exactly.
(module
  (memory (export "memory") 16)

  ;; Horizontal sums of four vectors, packed into one: (Σa, Σb, Σc, Σd).
  (func $sum4 (param $a v128) (param $b v128) (param $c v128) (param $d v128) (result v128)
    (local $ab v128) (local $cd v128)
    ;; ab = (a0+a2, b0+b2, a1+a3, b1+b3), cd likewise
    (local.set $ab (f32x4.add
      (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $a) (local.get $b))
      (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $a) (local.get $b))))
    (local.set $cd (f32x4.add
      (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $c) (local.get $d))
      (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $c) (local.get $d))))
    ;; (a0+a2, b0+b2, c0+c2, d0+d2) + (a1+a3, b1+b3, c1+c3, d1+d3)
    (f32x4.add
      (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $ab) (local.get $cd))
      (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $ab) (local.get $cd))))

  ;; Byte pointers; sizes in elements. accumulate ≠ 0 adds to y instead of overwriting it.
  (func (export "gemm_nt") (param $x i32) (param $w i32) (param $y i32) (param $M i32) (param $K i32) (param $N i32) (param $accumulate i32)
    (local $xRow i32) (local $yRow i32) (local $m i32) (local $n i32) (local $k i32)
    (local $x0 i32) (local $x1 i32) (local $w0 i32) (local $w1 i32) (local $w2 i32) (local $w3 i32)
    (local $y0 i32) (local $y1 i32)
    (local $a v128) (local $b v128) (local $c v128)
    (local $s00 v128) (local $s01 v128) (local $s02 v128) (local $s03 v128)
    (local $s10 v128) (local $s11 v128) (local $s12 v128) (local $s13 v128)
    (local $r0 v128) (local $r1 v128)
    (local.set $xRow (i32.shl (local.get $K) (i32.const 2)))
    (local.set $yRow (i32.shl (local.get $N) (i32.const 2)))
    (local.set $m (i32.const 0))
    (block $rowsDone
      (loop $rows
        (br_if $rowsDone (i32.ge_u (local.get $m) (local.get $M)))
        (local.set $x0 (i32.add (local.get $x) (i32.mul (local.get $m) (local.get $xRow))))
        (local.set $x1 (i32.add (local.get $x0) (local.get $xRow)))
        (local.set $y0 (i32.add (local.get $y) (i32.mul (local.get $m) (local.get $yRow))))
        (local.set $y1 (i32.add (local.get $y0) (local.get $yRow)))
        (local.set $n (i32.const 0))
        (block $colsDone
          (loop $cols
            (br_if $colsDone (i32.ge_u (local.get $n) (local.get $N)))
            (local.set $w0 (i32.add (local.get $w) (i32.mul (local.get $n) (local.get $xRow))))
            (local.set $w1 (i32.add (local.get $w0) (local.get $xRow)))
            (local.set $w2 (i32.add (local.get $w1) (local.get $xRow)))
            (local.set $w3 (i32.add (local.get $w2) (local.get $xRow)))
            (local.set $s00 (v128.const i32x4 0 0 0 0)) (local.set $s01 (v128.const i32x4 0 0 0 0))
            (local.set $s02 (v128.const i32x4 0 0 0 0)) (local.set $s03 (v128.const i32x4 0 0 0 0))
            (local.set $s10 (v128.const i32x4 0 0 0 0)) (local.set $s11 (v128.const i32x4 0 0 0 0))
            (local.set $s12 (v128.const i32x4 0 0 0 0)) (local.set $s13 (v128.const i32x4 0 0 0 0))
            (local.set $k (i32.const 0))
            (block $dotDone
              (loop $dot
                (br_if $dotDone (i32.ge_u (local.get $k) (local.get $xRow)))
                (local.set $a (v128.load (i32.add (local.get $x0) (local.get $k))))
                (local.set $b (v128.load (i32.add (local.get $x1) (local.get $k))))
                (local.set $c (v128.load (i32.add (local.get $w0) (local.get $k))))
                (local.set $s00 (f32x4.add (local.get $s00) (f32x4.mul (local.get $a) (local.get $c))))
                (local.set $s10 (f32x4.add (local.get $s10) (f32x4.mul (local.get $b) (local.get $c))))
                (local.set $c (v128.load (i32.add (local.get $w1) (local.get $k))))
                (local.set $s01 (f32x4.add (local.get $s01) (f32x4.mul (local.get $a) (local.get $c))))
                (local.set $s11 (f32x4.add (local.get $s11) (f32x4.mul (local.get $b) (local.get $c))))
                (local.set $c (v128.load (i32.add (local.get $w2) (local.get $k))))
                (local.set $s02 (f32x4.add (local.get $s02) (f32x4.mul (local.get $a) (local.get $c))))
                (local.set $s12 (f32x4.add (local.get $s12) (f32x4.mul (local.get $b) (local.get $c))))
                (local.set $c (v128.load (i32.add (local.get $w3) (local.get $k))))
                (local.set $s03 (f32x4.add (local.get $s03) (f32x4.mul (local.get $a) (local.get $c))))
                (local.set $s13 (f32x4.add (local.get $s13) (f32x4.mul (local.get $b) (local.get $c))))
                (local.set $k (i32.add (local.get $k) (i32.const 16)))
                (br $dot)))
            (local.set $r0 (call $sum4 (local.get $s00) (local.get $s01) (local.get $s02) (local.get $s03)))
            (local.set $r1 (call $sum4 (local.get $s10) (local.get $s11) (local.get $s12) (local.get $s13)))
            (if (local.get $accumulate)
              (then
                (local.set $r0 (f32x4.add (local.get $r0) (v128.load (i32.add (local.get $y0) (i32.shl (local.get $n) (i32.const 2))))))
                (local.set $r1 (f32x4.add (local.get $r1) (v128.load (i32.add (local.get $y1) (i32.shl (local.get $n) (i32.const 2))))))))
            (v128.store (i32.add (local.get $y0) (i32.shl (local.get $n) (i32.const 2))) (local.get $r0))
            (v128.store (i32.add (local.get $y1) (i32.shl (local.get $n) (i32.const 2))) (local.get $r1))
            (local.set $n (i32.add (local.get $n) (i32.const 4)))
            (br $cols)))
        (local.set $m (i32.add (local.get $m) (i32.const 2)))
        (br $rows))))
)
