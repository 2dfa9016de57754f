#!/bin/sh
# make_seeds.sh: (re)make the committed seed corpora of tools/fuzz/corpus/.
# The checkpoints come from one-step training runs of tiny models (vocab 4,
# width 4, ctx 4: about 4 KB each) by the routelab binary given as $1
# (default build/routelab); run again after a change of the checkpoint format.
# usage: sh tools/fuzz/make_seeds.sh [ROUTELAB]
set -eu
cd "$(dirname "$0")/../.."
B=$(realpath "${1:-build/routelab}")
C=tools/fuzz/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -rf "$C"
mkdir -p "$C/ckpt" "$C/ckpt_sum" "$C/tokfile_nanogpt" "$C/tokfile_llmc" "$C/text" "$C/brown" \
         "$C/so2_table" "$C/lr" "$C/pos" "$C/opts"

# 64 uint16 ids 0..3 (headerless: nanoGPT) and the same as an llm.c file
python3 - "$tmp" <<'PY'
import struct, sys
ids = [(7 * i * i + 3 * i) % 4 for i in range(64)]
open(sys.argv[1] + '/d.bin', 'wb').write(struct.pack('<64H', *ids))
hdr = [20240520, 1, 64] + [0] * 253
open(sys.argv[1] + '/llmc.bin', 'wb').write(struct.pack('<256i', *hdr) + struct.pack('<64H', *ids))
PY
for pos in rope pemb-shared lf path alibi+random fixed-rope; do
    name=$(echo "$pos" | tr '+' '_')
    "$B" train --data "$tmp/d.bin" --vocab 4 --width 4 --heads 2 --layers 1 --ctx 4 --batch 1 \
        --steps 1 --val-every 1 --val-batches 1 --pos "$pos" --out "$tmp/$name" >/dev/null
    cp "$tmp/$name/ckpt.bin" "$C/ckpt/$name"
    cp "$tmp/$name/ckpt.bin" "$C/ckpt_sum/$name"
done
# a rotation base other than 10000: checkpoint version 3 (the base after the header)
"$B" train --data "$tmp/d.bin" --vocab 4 --width 4 --heads 2 --layers 1 --ctx 4 --batch 1 \
    --steps 1 --val-every 1 --val-batches 1 --pos random_qkv --rot-base 500 --out "$tmp/base500" >/dev/null
cp "$tmp/base500/ckpt.bin" "$C/ckpt/random_qkv_base500"
cp "$tmp/base500/ckpt.bin" "$C/ckpt_sum/random_qkv_base500"

cp "$tmp/d.bin" "$C/tokfile_nanogpt/ids64"
cp "$tmp/llmc.bin" "$C/tokfile_nanogpt/llmc64"
tail -c +5 "$tmp/llmc.bin" > "$C/tokfile_llmc/ids64"   # the harness writes the magic
printf '\001\000\000\000\000\000\000\000' > "$C/tokfile_llmc/empty"

# text: the first byte picks the vocabulary (2 + byte)
printf '\376%s\n' "Routes compose rotations; a long route forgets where it began." > "$C/text/english"
printf '\001abababababababababababababababab' > "$C/text/small_vocab"

# one tagged document: word/tag, sentences per line, a tab opens a paragraph
printf '\tThe/at route/nn ended/vbd ./.\n\n\tIt/pps said/vbd ``/`` yes/rb '"''"'/'"''"' ,/, (/( twice/rb )/) ./.\n' \
    > "$C/brown/doc"

# angle tables: the first byte picks d = 2 (1 + byte % 32)
printf '\001# two angles per token\n0.1 0.2\n\n-1e-3\t3.14159\n' > "$C/so2_table/d4"
printf '\000 1.5\n-2\n' > "$C/so2_table/d2"

# schedules: the first byte picks --steps (0, 1, 1000, 1e12)
printf '\000%s' 5e-4 > "$C/lr/const"
printf '\000%s' 1e-3:100,5e-4:200 > "$C/lr/stages"
printf '\002%s' cosine:1e-3:10 > "$C/lr/cosine"
printf '\002%s' cosine:1e-3:10:1e-5 > "$C/lr/cosine_min"

# --pos names: the first byte picks --mode (none, qk, qkv)
for p in rope random_qkv alibi+random fixed-rope path pemb_qk pemb-shared_qk lf none alibi; do
    printf '\000%s' "$p" > "$C/pos/$(echo "$p" | tr '+' '_')"
done
printf '\002%s' random > "$C/pos/random_mode_qkv"

# argv pieces separated by NUL bytes
printf -- '--n\0005\000--x=0.25\000pos1\000--family\000haar\000--quiet\000--out\000f' > "$C/opts/mixed"
printf -- '--seed=9200000000000000000\000--y\0001e300\000--help\000--bogus' > "$C/opts/help"
printf -- 'a\000b\000c' > "$C/opts/positionals"
echo "seeds: $(find "$C" -type f | wc -l) files, $(du -sk "$C" | cut -f1) KB"
