"""The vendor questionnaire (`linkvet questionnaire export|import`): the questions and how answers become
catalog facts. The workbook itself is written and read by `desktop.usecases.questionnaire`; answers are
validated by merging them over the catalog as the loader validates any catalog (same rules, same messages),
and written as the provider's overlay in the user's catalog folder (`catalogs.overlay`, `catalogs.user`).

    questions.py   `Question`; the provider sheet's, each region's and each offering's questions
    answers.py     what is known now, values as shown, answer cells → catalog values, ordering by swing
"""

from catalogs.questionnaire.answers import (
    all_questions,
    answer_problem,
    answer_value,
    known_now,
    offerings_of,
    order_by_swing,
    question_for,
    shown,
)
from catalogs.questionnaire.questions import (
    CURRENCIES,
    YES_NO,
    Question,
    offering_questions,
    provider_questions,
    region_questions,
)

__all__ = [
    "CURRENCIES",
    "YES_NO",
    "Question",
    "all_questions",
    "answer_problem",
    "answer_value",
    "known_now",
    "offering_questions",
    "offerings_of",
    "order_by_swing",
    "provider_questions",
    "question_for",
    "region_questions",
    "shown",
]
