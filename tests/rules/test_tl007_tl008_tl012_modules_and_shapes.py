"""TL007 module-in-forward, TL012 rnn-module, TL008 dynamic-output-shape."""

from rule_cases import Case, findings, static_and_dynamo_tests

D = {}

CASES = {
    # ---------------------------------------------------------------- TL007 module-in-forward
    "parametric_modules_in_forward": Case(
        """
        import torch
        import torch as T
        from torch import nn
        from torch.nn import Linear

        class Net(nn.Module):
            def forward(self, x):
                h = Linear(16, 16)(x)  # error: TL007
                h = nn.LayerNorm(16)(h)  # error: TL007
                w = nn.Parameter(torch.ones(16))  # error: TL007
                conv = T.nn.Conv1d(1, 1, 3)  # error: TL007
                return h * w
        """,
        D,
    ),
    "parameter_free_modules_and_functional": Case(
        """
        import torch
        import torch.nn.functional as F
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(16, 16)
                self.scale = nn.Parameter(torch.ones(16))

            def forward(self, x):
                h = nn.ReLU()(self.proj(x))
                h = nn.Dropout(0.1)(h)
                h = nn.LayerNorm(16, elementwise_affine=False)(h)
                h = F.linear(h, self.proj.weight) * self.scale
                return nn.Flatten()(nn.Identity()(h))
        """,
        D,
    ),
    "module_built_in_helper": Case(
        """
        from torch import nn

        class Net(nn.Module):
            def head(self, h):
                return nn.Linear(h.shape[-1], 4)(h)  # error: TL007

            def forward(self, x):
                return self.head(x)
        """,
        D,
    ),
    # ---------------------------------------------------------------- TL012 rnn-module
    "rnn_modules_called": Case(
        """
        import torch as T
        from torch import nn
        from torch.nn import GRU

        class Encoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.lstm = nn.LSTM(16, 8, batch_first=True)
                self.gru = GRU(8, 8, batch_first=True)
                self.rnn = T.nn.RNN(8, 8, batch_first=True)

            def run_gru(self, h):
                out, _ = self.gru(h)  # error: TL012
                return out

            def forward(self, x):
                h, (hn, cn) = self.lstm(x)  # error: TL012
                h = self.run_gru(h)
                h, _ = self.rnn(h)  # error: TL012
                return h
        """,
        {"inputs": "f32[2,5,16]"},
    ),
    "rnn_cells_and_unused_rnn": Case(
        """
        import torch
        from torch import nn

        class Decoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.cell = nn.LSTMCell(16, 16)
                self.gru_cell = nn.GRUCell(16, 16)
                self.rnn = nn.GRU(16, 16)

            def forward(self, x):
                h, c = self.cell(x)
                return self.gru_cell(h, c)

        def warm_up(model, x):
            return model.rnn(x)
        """,
        D,
    ),
    "rnn_made_in_the_arm_of_a_kept_setting": Case(
        """
        import torch
        from torch import nn

        class Encoder(nn.Module):
            def __init__(self, kind="lstm", dim=16):
                super().__init__()
                self.kind = kind
                if kind == "lstm":
                    self.net = nn.LSTM(dim, dim // 2, batch_first=True, bidirectional=True)
                elif kind == "cnn":
                    self.net = nn.Conv1d(dim, dim, 3, padding=1)
                else:
                    self.net = nn.Linear(dim, dim)

            def forward(self, x):
                if self.kind == "lstm":
                    return self.net(x)[0]  # error: TL012
                if self.kind == "cnn":
                    return self.net(x.transpose(1, 2)).transpose(1, 2)
                return self.net(x)
        """,
        {"inputs": "f32[2,5,16]"},
    ),
    "conv_called_in_its_arm_with_an_rnn_made_last": Case(
        """
        import torch
        from torch import nn

        class Encoder(nn.Module):
            def __init__(self, kind="cnn", dim=16):
                super().__init__()
                self.kind = kind
                if self.kind == "cnn":
                    self.net = nn.Conv1d(dim, dim, 3, padding=1)
                if self.kind == "gru":
                    self.net = nn.GRU(dim, dim, batch_first=True)

            def forward(self, x):
                if self.kind == "cnn":
                    return self.net(x.transpose(1, 2)).transpose(1, 2)
                return x
        """,
        {"inputs": "f32[2,5,16]"},
    ),
    # ---------------------------------------------------------------- TL008 dynamic-output-shape
    "masks_and_dynamic_ops": Case(
        """
        import torch
        from torch import nn

        class Filter(nn.Module):
            def forward(self, x):
                pos = x[x > 0]  # error: TL008
                finite = torch.isfinite(x) & (x < 3)
                kept = x[~finite]  # error: TL008
                idx = (x > 1).nonzero()  # error: TL008
                vals = torch.unique(x)  # error: TL008
                sel = x.masked_select(x < 0)  # error: TL008
                where = torch.where(x > 2)  # error: TL008
                return pos, kept, idx, vals, sel, where
        """,
        D,
    ),
    "counts_from_tensors": Case(
        """
        import torch
        from torch import nn

        class Expand(nn.Module):
            def forward(self, x, counts):
                hist = counts.bincount()  # error: TL008
                rep = torch.repeat_interleave(x, counts, dim=0)  # error: TL008
                return rep, hist
        """,
        {"inputs": "f32[8,16];i64[8]:0..3"},
    ),
    "masked_writes_and_column_masks": Case(
        """
        import torch
        from torch import nn

        class Clean(nn.Module):
            def forward(self, x):
                x = x.clone()
                x[x < 0] = 0.0
                x[torch.isnan(x)] = 0.0
                y = x * 2
                x[x > 3], y[y > 3] = 3.0, 6.0
                cols = x[:, x[0] > 0]  # error: TL008
                x[x > 1] += 1.0  # error: TL008
                return x + y, cols
        """,
        D,
    ),
    "masks_of_elementwise_extremes": Case(
        """
        import torch
        from torch import nn

        class Overlap(nn.Module):
            def forward(self, boxes1, boxes2):
                x1, x2 = boxes1.unbind(dim=-1)
                x1g, x2g = boxes2.unbind(dim=-1)
                lo = torch.max(x1, x1g)
                hi = x2.min(x2g)
                inter = torch.zeros_like(x1)
                mask = hi > lo
                inter[mask] = hi[mask] - lo[mask]  # error: TL008
                best, where = torch.max(boxes1, 1)
                return inter + best + where
        """,
        {"inputs": ["f32[5,2]", "f32[5,2]"]},
    ),
    "fixed_shape_lookalikes": Case(
        """
        import torch
        from torch import nn

        class Net(nn.Module):
            def forward(self, x, idx):
                mask = x > 0
                a = torch.where(mask, x, 0.0)
                b = x.masked_fill(~mask, 0.0) * mask
                c = x[idx] + x[:, 0:1] + x[x.shape[0] - 1]
                d = x.repeat_interleave(2, dim=0)
                return a + b + c, d
        """,
        {"inputs": "f32[8,16];i64[8]:0..8"},
    ),
}

test_static, test_dynamo_agrees = static_and_dynamo_tests(CASES)


def test_rnn_message_says_what_to_do():
    messages = [f.message for f in findings(CASES["rnn_modules_called"].snippet) if f.line == 13]
    assert messages and "allow_rnn" in messages[0] and "nn.GRU" in messages[0]
    assert "called from Encoder.forward" in messages[0]
