#!/usr/bin/env bash
# generate_two_processes.sh DIFFTEST: two processes generate byte-identical programs per seed.
set -u
difftest=$1
for seed in 0 1 2 3 5 8 13 21 34 55 89 144 1000 123456789; do
  cmp -s <("$difftest" generate --seed "$seed") <("$difftest" generate --seed "$seed") || {
    echo "FAIL: seed $seed differs between two processes"; exit 1; }
done
echo ok
