# Derives crates/wordnet/data/{synsets,senses}.tsv.gz from WordNet 3.0's dict files
# (data/README.md): python3 derive.py WORDNET_DICT_DIR OUT_DIR
import gzip, re, sys
W, OUT = sys.argv[1], sys.argv[2]
POS = [('noun', 'n'), ('verb', 'v'), ('adj', 'a'), ('adv', 'r')]
lines, index = [], {}
for p, _ in POS:
    for line in open(f'{W}/data.{p}', encoding='latin-1'):
        if line.startswith(' '):
            continue
        head, _, gloss = line.partition(' | ')
        f = head.split()
        pos = 'a' if f[2] == 's' else f[2]
        n = int(f[3], 16)
        lemmas = [re.sub(r'\(.*\)$', '', f[4 + 2 * i]).lower() for i in range(n)]
        k = 4 + 2 * n
        ptrs = []
        for _ in range(int(f[k + 0])):
            sym, off, pp = f[k + 1], f[k + 2], f[k + 3]
            ptrs.append((sym, (off, 'a' if pp == 's' else pp)))
            k += 4
        index[(f[0], pos)] = len(lines)
        lines.append((pos, lemmas, ptrs, gloss.strip()))
count = {}
for line in open(f'{W}/cntlist.rev'):
    key, number, c = line.split()
    lemma, rest = key.split('%')
    pos = {'1': 'n', '2': 'v', '3': 'a', '4': 'r', '5': 'a'}[rest.split(':')[0]]
    count[(lemma, pos, int(number))] = count.get((lemma, pos, int(number)), 0) + int(c)
with gzip.GzipFile(f'{OUT}/synsets.tsv.gz', 'wb', 9, mtime=0) as g:
    for pos, lemmas, ptrs, gloss in lines:
        inst = int(any(s == '@i' for s, _ in ptrs))
        hyper = [str(index[t]) for s, t in ptrs if s in ('@', '@i') and t in index]
        links = [str(index[t]) for s, t in ptrs if t in index]
        g.write(f"{pos}\t{' '.join(lemmas)}\t{inst}\t{' '.join(hyper)}\t{' '.join(links)}\t{gloss}\n".encode('latin-1'))
senses = {}
order = []
for p, pos in POS:
    for line in open(f'{W}/index.{p}', encoding='latin-1'):
        if line.startswith(' '):
            continue
        f = line.split()
        lemma, pcnt = f[0], int(f[3])
        if lemma not in senses:
            senses[lemma] = []
            order.append(lemma)
        for r, off in enumerate(f[4 + pcnt + 2:]):
            senses[lemma].append(f"{index[(off, pos)]}:{count.get((lemma, pos, r + 1), 0)}")
with gzip.GzipFile(f'{OUT}/senses.tsv.gz', 'wb', 9, mtime=0) as g:
    for lemma in order:
        g.write(f"{lemma}\t{' '.join(senses[lemma])}\n".encode('latin-1'))
