from torch import nn

from ...constants import POSITION_SCALE
from ...modeling_utils import PreTrainedModel
from ...utils import capture_outputs, is_torchdynamo_compiling, logging

logger = logging.get_logger(__name__)


class TinyPreTrainedModel(PreTrainedModel):
    base_model_prefix = "tiny"


class TinyModel(TinyPreTrainedModel):
    def __init__(self):
        super().__init__()
        self.emb = nn.Linear(8, 8)

    @capture_outputs(keep_hidden=True)
    def forward(self, x):
        if not is_torchdynamo_compiling():
            logger.warning("eager-only check")
        lengths = (x > 0).sum(-1)
        self.check_length(lengths)
        mask = self.invert_mask(x)
        h = self.emb(x * mask) * POSITION_SCALE
        if POSITION_SCALE.sum() > 4:  # graph break
            h = h * 2
        _ = self.loss_type
        return h


class TinyForRegression(TinyModel):
    def forward(self, x):
        h = super().forward(x)
        logger.info("regression head")  # graph break
        return self.forward_head(h)
