import hashlib, json, re, sys, time, pickle
from pathlib import Path
import numpy as np
from core.embed import CachedEmbedder, make_embedder
from core.lexical import analyse
from core.text import tokenize, ENGLISH_STOPWORDS
from slidesearch.model import Slide
from slidesearch.library import Library
from slidesearch.engine import SlideSearch
from slidesearch.pipeline.state import SearchState

D = Path("/work/shared/data/slidevqa")
texts = json.load(open(D / "slide_vqa_image_to_gpt_text.json"))
qs = json.load(open(D / "slide_vqa_question_answer_docid_list.json"))
RX = r"^(?P<deck>.*)-(?P<page>\d+)-1024\.jpg$"
slides = []
for sid, text in texts.items():
    m = re.match(RX, sid)
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    slides.append(Slide(slide_id=sid, deck_id=m["deck"], deck_name=m["deck"], folder="/SlideVQA", slide_number=int(m["page"]), title=lines[0] if lines else "", text="\n".join(lines[1:]), content_type="content"))
emb = CachedEmbedder(make_embedder("minilm"), Path("/tmp/i7/emb_minilm.sqlite"))
lib = Library.from_slides(slides, embedder=emb)
eng = SlideSearch(lib)
Q = emb.encode([q["question"] for q in qs])
dense = Q @ np.asarray(lib.vectors).T
bm = np.stack([lib.bm25.scores(analyse(q["question"])) for q in qs])
ent = []
for q in qs:
    st = SearchState(angles=(q["question"],))
    for s in eng._retrieval_stages[:2]: st = s.run(st)
    ent.append(sorted(st.entity_rows))
rel = [[lib.id_to_row[d] for d in q["docid"]] for q in qs]
split = np.array([int(hashlib.sha1(re.match(RX, q["docid"][0])["deck"].encode()).hexdigest(),16)%2 for q in qs])
title_tok = [set(tokenize(t, ENGLISH_STOPWORDS)) for t in lib.titles]
qtok = [set(tokenize(q["question"], ENGLISH_STOPWORDS)) for q in qs]
pickle.dump(dict(dense=dense, bm=bm, ent=ent, rel=rel, split=split, title_tok=title_tok, qtok=qtok), open("/tmp/i7/vqa_mats.pkl","wb"))
print("saved")
