;; The column scan's inner loops (vector-columns.ts) in WebAssembly SIMD: 16 rows at a time, where
;; the same loops in JavaScript do one (adding columns: about 7 times faster at a million rows and
;; 32 columns). The lexical ranking bounds frequent words' impact columns with the same loops
;; (impact-top-k.ts).
;; Compiled by scripts/generate.ts into column-kernel.generated.ts (npm run generate).
(module
  (memory (import "env" "memory") 1)
  ;; scores[i] = ($add ? scores[i] : 0) + wa * a[i] + wb * b[i] + wc * c[i] + wd * d[i] for i in
  ;; [0, n): scores float32 at byte $s, columns a-d int8 at bytes $a-$d; n a multiple of 16 (rows
  ;; past the caller's count are computed and ignored).
  (func (export "acc4") (param $s i32) (param $a i32) (param $b i32) (param $c i32) (param $d i32) (param $n i32)
        (param $wa f32) (param $wb f32) (param $wc f32) (param $wd f32) (param $add i32)
    (local $i i32) (local $va v128) (local $vb v128) (local $vc v128) (local $vd v128)
    (local $xa v128) (local $xb v128) (local $xc v128) (local $xd v128)
    (local $la v128) (local $lb v128) (local $lc v128) (local $ld v128)
    (local $p i32)
    (local.set $va (f32x4.splat (local.get $wa)))
    (local.set $vb (f32x4.splat (local.get $wb)))
    (local.set $vc (f32x4.splat (local.get $wc)))
    (local.set $vd (f32x4.splat (local.get $wd)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $xa (v128.load (i32.add (local.get $a) (local.get $i))))
        (local.set $xb (v128.load (i32.add (local.get $b) (local.get $i))))
        (local.set $xc (v128.load (i32.add (local.get $c) (local.get $i))))
        (local.set $xd (v128.load (i32.add (local.get $d) (local.get $i))))
        ;; low 8 rows
        (local.set $la (i16x8.extend_low_i8x16_s (local.get $xa)))
        (local.set $lb (i16x8.extend_low_i8x16_s (local.get $xb)))
        (local.set $lc (i16x8.extend_low_i8x16_s (local.get $xc)))
        (local.set $ld (i16x8.extend_low_i8x16_s (local.get $xd)))
        (local.set $p (i32.add (local.get $s) (i32.shl (local.get $i) (i32.const 2))))
        (v128.store (local.get $p)
          (f32x4.add (if (result v128) (local.get $add) (then (v128.load (local.get $p))) (else (v128.const i32x4 0 0 0 0)))
            (f32x4.add
              (f32x4.add (f32x4.mul (local.get $va) (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $la))))
                         (f32x4.mul (local.get $vb) (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $lb)))))
              (f32x4.add (f32x4.mul (local.get $vc) (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $lc))))
                         (f32x4.mul (local.get $vd) (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $ld))))))))
        (v128.store offset=16 (local.get $p)
          (f32x4.add (if (result v128) (local.get $add) (then (v128.load offset=16 (local.get $p))) (else (v128.const i32x4 0 0 0 0)))
            (f32x4.add
              (f32x4.add (f32x4.mul (local.get $va) (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $la))))
                         (f32x4.mul (local.get $vb) (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $lb)))))
              (f32x4.add (f32x4.mul (local.get $vc) (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $lc))))
                         (f32x4.mul (local.get $vd) (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $ld))))))))
        ;; high 8 rows
        (local.set $la (i16x8.extend_high_i8x16_s (local.get $xa)))
        (local.set $lb (i16x8.extend_high_i8x16_s (local.get $xb)))
        (local.set $lc (i16x8.extend_high_i8x16_s (local.get $xc)))
        (local.set $ld (i16x8.extend_high_i8x16_s (local.get $xd)))
        (v128.store offset=32 (local.get $p)
          (f32x4.add (if (result v128) (local.get $add) (then (v128.load offset=32 (local.get $p))) (else (v128.const i32x4 0 0 0 0)))
            (f32x4.add
              (f32x4.add (f32x4.mul (local.get $va) (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $la))))
                         (f32x4.mul (local.get $vb) (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $lb)))))
              (f32x4.add (f32x4.mul (local.get $vc) (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $lc))))
                         (f32x4.mul (local.get $vd) (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $ld))))))))
        (v128.store offset=48 (local.get $p)
          (f32x4.add (if (result v128) (local.get $add) (then (v128.load offset=48 (local.get $p))) (else (v128.const i32x4 0 0 0 0)))
            (f32x4.add
              (f32x4.add (f32x4.mul (local.get $va) (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $la))))
                         (f32x4.mul (local.get $vb) (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $lb)))))
              (f32x4.add (f32x4.mul (local.get $vc) (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $lc))))
                         (f32x4.mul (local.get $vd) (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $ld))))))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $next))))
;; acc4 for one column: scores[i] = ($add ? scores[i] : 0) + wa * a[i] for i in [0, n) (a
  ;; multiple of 16), for a remainder of fewer than four columns at a quarter of acc4's work each.
  (func (export "acc1") (param $s i32) (param $a i32) (param $n i32) (param $wa f32) (param $add i32)
    (local $i i32) (local $va v128) (local $xa v128) (local $la v128) (local $p i32)
    (local.set $va (f32x4.splat (local.get $wa)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $xa (v128.load (i32.add (local.get $a) (local.get $i))))
        (local.set $p (i32.add (local.get $s) (i32.shl (local.get $i) (i32.const 2))))
        (local.set $la (i16x8.extend_low_i8x16_s (local.get $xa)))
        (v128.store (local.get $p)
          (f32x4.add (if (result v128) (local.get $add) (then (v128.load (local.get $p))) (else (v128.const i32x4 0 0 0 0)))
            (f32x4.mul (local.get $va) (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $la))))))
        (v128.store offset=16 (local.get $p)
          (f32x4.add (if (result v128) (local.get $add) (then (v128.load offset=16 (local.get $p))) (else (v128.const i32x4 0 0 0 0)))
            (f32x4.mul (local.get $va) (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $la))))))
        (local.set $la (i16x8.extend_high_i8x16_s (local.get $xa)))
        (v128.store offset=32 (local.get $p)
          (f32x4.add (if (result v128) (local.get $add) (then (v128.load offset=32 (local.get $p))) (else (v128.const i32x4 0 0 0 0)))
            (f32x4.mul (local.get $va) (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $la))))))
        (v128.store offset=48 (local.get $p)
          (f32x4.add (if (result v128) (local.get $add) (then (v128.load offset=48 (local.get $p))) (else (v128.const i32x4 0 0 0 0)))
            (f32x4.mul (local.get $va) (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $la))))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $next))))
;; Writes to $out (i32 each) the rows i in [0, n) whose score (float32 at byte $s) is above
  ;; $floor, in order, and returns how many: 16 compared at a time, most blocks having none.
  (func (export "above") (param $s i32) (param $n i32) (param $floor f32) (param $out i32) (result i32)
    (local $i i32) (local $count i32) (local $f v128) (local $p i32) (local $j i32)
    (local.set $f (f32x4.splat (local.get $floor)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $p (i32.add (local.get $s) (i32.shl (local.get $i) (i32.const 2))))
        (if (v128.any_true
              (v128.or
                (v128.or (f32x4.gt (v128.load (local.get $p)) (local.get $f)) (f32x4.gt (v128.load offset=16 (local.get $p)) (local.get $f)))
                (v128.or (f32x4.gt (v128.load offset=32 (local.get $p)) (local.get $f)) (f32x4.gt (v128.load offset=48 (local.get $p)) (local.get $f)))))
          (then
            (local.set $j (i32.const 0))
            (loop $row
              (if (f32.gt (f32.load (i32.add (local.get $p) (i32.shl (local.get $j) (i32.const 2)))) (local.get $floor))
                (then
                  (i32.store (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 2))) (i32.add (local.get $i) (local.get $j)))
                  (local.set $count (i32.add (local.get $count) (i32.const 1)))))
              (local.set $j (i32.add (local.get $j) (i32.const 1)))
              (br_if $row (i32.lt_u (local.get $j) (i32.const 16))))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $next)))
    (local.get $count))
  ;; acc4 in integers, for the vector scan: scores int32 at byte $s, weights int16 (in i32 params),
  ;; each row's four products summed exactly. Rows' values of two columns are interleaved
  ;; (a0 b0 a1 b1 ...) so that one i32x4.dot_i16x8_s adds two columns' products for four rows: more
  ;; than twice acc4's speed (bench:column-kernel), which converts every value to float32 and
  ;; multiplies it alone.
  (func (export "acc4i") (param $s i32) (param $a i32) (param $b i32) (param $c i32) (param $d i32) (param $n i32)
        (param $wa i32) (param $wb i32) (param $wc i32) (param $wd i32) (param $add i32)
    (local $i i32) (local $wab v128) (local $wcd v128)
    (local $xa v128) (local $xb v128) (local $xc v128) (local $xd v128)
    (local $ab v128) (local $cd v128) (local $p i32)
    ;; (wa, wb) pairs and (wc, wd) pairs across the eight i16 lanes, for i32x4.dot_i16x8_s over rows' interleaved values
    (local.set $wab (i32x4.splat (i32.or (i32.and (local.get $wa) (i32.const 0xffff)) (i32.shl (local.get $wb) (i32.const 16)))))
    (local.set $wcd (i32x4.splat (i32.or (i32.and (local.get $wc) (i32.const 0xffff)) (i32.shl (local.get $wd) (i32.const 16)))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $xa (v128.load (i32.add (local.get $a) (local.get $i))))
        (local.set $xb (v128.load (i32.add (local.get $b) (local.get $i))))
        (local.set $xc (v128.load (i32.add (local.get $c) (local.get $i))))
        (local.set $xd (v128.load (i32.add (local.get $d) (local.get $i))))
        (local.set $p (i32.add (local.get $s) (i32.shl (local.get $i) (i32.const 2))))
        ;; rows 0-7: a and b interleaved (a0 b0 a1 b1 ...), c and d likewise
        (local.set $ab (i8x16.shuffle 0 16 1 17 2 18 3 19 4 20 5 21 6 22 7 23 (local.get $xa) (local.get $xb)))
        (local.set $cd (i8x16.shuffle 0 16 1 17 2 18 3 19 4 20 5 21 6 22 7 23 (local.get $xc) (local.get $xd)))
        (v128.store (local.get $p)
          (i32x4.add (if (result v128) (local.get $add) (then (v128.load (local.get $p))) (else (v128.const i32x4 0 0 0 0)))
            (i32x4.add (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $ab)) (local.get $wab))
                       (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $cd)) (local.get $wcd)))))
        (v128.store offset=16 (local.get $p)
          (i32x4.add (if (result v128) (local.get $add) (then (v128.load offset=16 (local.get $p))) (else (v128.const i32x4 0 0 0 0)))
            (i32x4.add (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $ab)) (local.get $wab))
                       (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $cd)) (local.get $wcd)))))
        ;; rows 8-15
        (local.set $ab (i8x16.shuffle 8 24 9 25 10 26 11 27 12 28 13 29 14 30 15 31 (local.get $xa) (local.get $xb)))
        (local.set $cd (i8x16.shuffle 8 24 9 25 10 26 11 27 12 28 13 29 14 30 15 31 (local.get $xc) (local.get $xd)))
        (v128.store offset=32 (local.get $p)
          (i32x4.add (if (result v128) (local.get $add) (then (v128.load offset=32 (local.get $p))) (else (v128.const i32x4 0 0 0 0)))
            (i32x4.add (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $ab)) (local.get $wab))
                       (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $cd)) (local.get $wcd)))))
        (v128.store offset=48 (local.get $p)
          (i32x4.add (if (result v128) (local.get $add) (then (v128.load offset=48 (local.get $p))) (else (v128.const i32x4 0 0 0 0)))
            (i32x4.add (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $ab)) (local.get $wab))
                       (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $cd)) (local.get $wcd)))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $next))))
  ;; above for int32 scores (acc4i's): the rows i in [0, n) whose score at byte $s is above $floor.
  (func (export "abovei") (param $s i32) (param $n i32) (param $floor i32) (param $out i32) (result i32)
    (local $i i32) (local $count i32) (local $f v128) (local $p i32) (local $j i32)
    (local.set $f (i32x4.splat (local.get $floor)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $p (i32.add (local.get $s) (i32.shl (local.get $i) (i32.const 2))))
        (if (v128.any_true
              (v128.or
                (v128.or (i32x4.gt_s (v128.load (local.get $p)) (local.get $f)) (i32x4.gt_s (v128.load offset=16 (local.get $p)) (local.get $f)))
                (v128.or (i32x4.gt_s (v128.load offset=32 (local.get $p)) (local.get $f)) (i32x4.gt_s (v128.load offset=48 (local.get $p)) (local.get $f)))))
          (then
            (local.set $j (i32.const 0))
            (loop $row
              (if (i32.gt_s (i32.load (i32.add (local.get $p) (i32.shl (local.get $j) (i32.const 2)))) (local.get $floor))
                (then
                  (i32.store (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 2))) (i32.add (local.get $i) (local.get $j)))
                  (local.set $count (i32.add (local.get $count) (i32.const 1)))))
              (local.set $j (i32.add (local.get $j) (i32.const 1)))
              (br_if $row (i32.lt_u (local.get $j) (i32.const 16))))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $next)))
    (local.get $count))
)
