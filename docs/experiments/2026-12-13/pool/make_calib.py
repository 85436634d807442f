import json, sys
t = json.load(open('/work/shared/data/slidevqa/slide_vqa_image_to_gpt_text.json'))
rows = [json.loads(l) for l in open('/work/main/eval/data/slidevqa_topical.jsonl')]
for p in range(1, 6):
    qids = {json.loads(l)['query_id'] for l in open(f'/work/pool/topical.part{p}.jsonl')}
    with open(f'/work/pool/calibration.part{p}.jsonl', 'w') as fh:
        for r in rows:
            if r['query_id'] in qids:
                for s, g in sorted(r['relevance'].items(), key=lambda x: -x[1]):
                    fh.write(json.dumps({'query_id': r['query_id'], 'query': r['query'], 'note': r['note'],
                                         'slide_id': s, 'grade': g, 'text': t[s]}, ensure_ascii=False) + '\n')
